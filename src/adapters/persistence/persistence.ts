import type { DatabaseHealth } from '../../application/ports/database-health.ts';
import type { RefreshTokenRepository } from '../../application/ports/refresh-token-repository.ts';
import type { RoleRepository } from '../../application/ports/role-repository.ts';
import type { UserRepository } from '../../application/ports/user-repository.ts';

/** Everything one storage backend provides; the composition root opens one and binds its parts. */
export interface Persistence {
  readonly users: UserRepository;
  readonly roles: RoleRepository;
  readonly refreshTokens: RefreshTokenRepository;
  readonly health: DatabaseHealth;
  /** Brings the system tables up to date; a no-op where there are no tables. */
  migrate(): Promise<void>;
  close(): Promise<void>;
}
