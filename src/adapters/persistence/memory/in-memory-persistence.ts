import type { Persistence } from '../persistence.ts';
import { InMemoryRefreshTokenRepository } from './in-memory-refresh-token-repository.ts';
import { InMemoryRoleRepository } from './in-memory-role-repository.ts';
import { InMemoryUserRepository } from './in-memory-user-repository.ts';

export function createInMemoryPersistence(): Persistence {
  const roles = new InMemoryRoleRepository();
  const refreshTokens = new InMemoryRefreshTokenRepository();
  const users = new InMemoryUserRepository(roles, refreshTokens);
  return {
    users,
    roles,
    refreshTokens,
    health: { check: async () => ({ status: 'ok', responseTimeMs: 0 }) },
    migrate: async () => {},
    close: async () => {},
  };
}
