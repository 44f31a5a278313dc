import { CachingPermissionRepository } from './caching-permission-repository.ts';
import { CachingRefreshTokenRepository } from './caching-refresh-token-repository.ts';
import { CachingRoleRepository } from './caching-role-repository.ts';
import { CachingUserRepository } from './caching-user-repository.ts';
import type { Persistence } from './persistence.ts';

/**
 * The same persistence with the in-process caches in front of the repositories the request path reads,
 * wired so that a change through one drops what it affects in another (a deleted role's holders, a
 * deleted user's sessions). One call, one set of caches: the composition root calls it once per
 * container. See docs/decisions/0005-in-process-caches.md.
 */
export function cachingPersistence(persistence: Persistence): Persistence {
  const refreshTokens = new CachingRefreshTokenRepository(persistence.refreshTokens);
  const users = new CachingUserRepository(persistence.users, refreshTokens);
  const roles = new CachingRoleRepository(persistence.roles, users);
  return {
    users,
    roles,
    refreshTokens,
    permissions: new CachingPermissionRepository(persistence.permissions),
    health: persistence.health,
    schema: persistence.schema,
    schemaEditor: persistence.schemaEditor,
    items: persistence.items,
    migrate: () => persistence.migrate(),
    close: () => persistence.close(),
  };
}
