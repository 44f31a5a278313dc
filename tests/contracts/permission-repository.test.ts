import type { MikroORM } from '@mikro-orm/postgresql';
import { InMemoryPermissionRepository } from '../../src/adapters/persistence/memory/in-memory-permission-repository.ts';
import { InMemoryRoleRepository } from '../../src/adapters/persistence/memory/in-memory-role-repository.ts';
import { MikroOrmPermissionRepository } from '../../src/adapters/persistence/mikro-orm/mikro-orm-permission-repository.ts';
import { SystemDatabase } from '../../src/adapters/persistence/mikro-orm/system-database.ts';
import type { Persistence } from '../../src/adapters/persistence/persistence.ts';
import type { PermissionRepository } from '../../src/application/ports/permission-repository.ts';
import { persistenceTargets } from '../support/databases.ts';
import { permissionRepositoryContract } from './permission-repository.contract.ts';

/** Builds the permission store on the target's own roles (memory) or database (MikroORM). */
function permissionsOf(persistence: Persistence): PermissionRepository {
  if ('orm' in persistence)
    return new MikroOrmPermissionRepository(new SystemDatabase(persistence.orm as MikroORM));
  if (persistence.roles instanceof InMemoryRoleRepository)
    return new InMemoryPermissionRepository(persistence.roles);
  throw new Error('unknown persistence target');
}

for (const target of persistenceTargets()) permissionRepositoryContract(target, permissionsOf).run();
