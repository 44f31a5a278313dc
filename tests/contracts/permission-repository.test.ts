import { CachingPermissionRepository } from '../../src/adapters/persistence/caching-permission-repository.ts';
import type { Persistence } from '../../src/adapters/persistence/persistence.ts';
import { persistenceTargets } from '../support/databases.ts';
import { permissionRepositoryContract } from './permission-repository.contract.ts';

for (const target of persistenceTargets()) {
  permissionRepositoryContract(target, (persistence: Persistence) => persistence.permissions).run();
}

// The cache in front of every backend must keep the same promises, changes included.
for (const target of persistenceTargets()) {
  permissionRepositoryContract(
    { ...target, name: `${target.name}, cached` },
    (persistence: Persistence) => new CachingPermissionRepository(persistence.permissions),
  ).run();
}
