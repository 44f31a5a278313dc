import type { Persistence } from '../persistence.ts';
import { InMemoryItemStore } from './in-memory-item-store.ts';
import { InMemoryPermissionRepository } from './in-memory-permission-repository.ts';
import { InMemoryRefreshTokenRepository } from './in-memory-refresh-token-repository.ts';
import { InMemoryRoleRepository } from './in-memory-role-repository.ts';
import { InMemorySchema } from './in-memory-schema.ts';
import { InMemoryUserRepository } from './in-memory-user-repository.ts';

export function createInMemoryPersistence(): Persistence {
  const roles = new InMemoryRoleRepository();
  const refreshTokens = new InMemoryRefreshTokenRepository();
  const users = new InMemoryUserRepository(roles, refreshTokens);
  const permissions = new InMemoryPermissionRepository(roles);
  const schema = new InMemorySchema();
  return {
    users,
    roles,
    permissions,
    refreshTokens,
    schema,
    schemaEditor: schema,
    items: new InMemoryItemStore(schema),
    health: { check: async () => ({ status: 'ok', responseTimeMs: 0 }) },
    migrate: async () => {},
    close: async () => {},
  };
}
