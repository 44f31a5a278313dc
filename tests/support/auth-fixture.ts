import { configSchema } from '../../src/adapters/config/config-schema.ts';
import { createInMemoryPersistence } from '../../src/adapters/persistence/memory/in-memory-persistence.ts';
import type { LoginBudgets } from '../../src/adapters/throttle/login-budgets.ts';
import type { AuthSettings } from '../../src/application/auth/auth-settings.ts';
import { type LoginCommand, LoginHandler } from '../../src/application/auth/login.ts';
import { LogoutHandler } from '../../src/application/auth/logout.ts';
import { RefreshSessionHandler } from '../../src/application/auth/refresh-session.ts';
import { ResolveAccountabilityHandler } from '../../src/application/auth/resolve-accountability.ts';
import { SuccessorSeal } from '../../src/application/auth/successor-seal.ts';
import { TokenPairIssuer } from '../../src/application/auth/token-pair.ts';
import { LastAdminGuard } from '../../src/application/last-admin-guard.ts';
import type { PasswordHasher } from '../../src/application/ports/password-hasher.ts';
import { CreateRoleHandler } from '../../src/application/roles/create-role.ts';
import { DeleteRoleHandler } from '../../src/application/roles/delete-role.ts';
import { UpdateRoleHandler } from '../../src/application/roles/update-role.ts';
import { BootstrapHandler } from '../../src/application/setup/bootstrap.ts';
import { type CreateUserCommand, CreateUserHandler } from '../../src/application/users/create-user.ts';
import { DeleteUserHandler } from '../../src/application/users/delete-user.ts';
import { UpdateCurrentUserHandler } from '../../src/application/users/update-current-user.ts';
import { UpdateUserHandler } from '../../src/application/users/update-user.ts';
import { SYSTEM_ACCOUNTABILITY } from '../../src/domain/accountability.ts';
import { FakeAccessTokens } from './fakes/fake-access-tokens.ts';
import { FakeLoginThrottle } from './fakes/fake-login-throttle.ts';
import { FakePasswordHasher } from './fakes/fake-password-hasher.ts';
import { FixedClock } from './fakes/fixed-clock.ts';
import { RecordingMetrics } from './fakes/recording-metrics.ts';

export const SETTINGS: AuthSettings = {
  accessTokenTtlMs: 15 * 60_000,
  refreshTokenTtlMs: 7 * 24 * 3_600_000,
  refreshReuseGraceMs: 10_000,
  checkSessionOnEachRequest: false,
};

/** The server secret the fixture's successor seal derives its keys with. */
const SECRET = 'auth-fixture-secret-of-at-least-32-characters';

/** The configured defaults (5 per e-mail and address, 100 per address, 15 minutes each). */
export const DEFAULT_LOGIN_BUDGETS: LoginBudgets = configSchema.parse({}).auth.throttle;

/** Where the fixture's logins come from unless a test says otherwise. */
const CLIENT_ADDRESS = '192.0.2.10';

/** Counts verifications, so a test can see that an unknown e-mail still costs one. */
export class CountingPasswordHasher implements PasswordHasher {
  readonly verified: Array<string | null> = [];
  private readonly inner = new FakePasswordHasher();

  hash(password: string) {
    return this.inner.hash(password);
  }

  verify(hash: string | null, password: string) {
    this.verified.push(hash);
    return this.inner.verify(hash, password);
  }
}

/** Every auth handler wired to the in-memory fakes and one clock the test moves by hand. */
export function authFixture(overrides: Partial<AuthSettings> = {}, budgets = DEFAULT_LOGIN_BUDGETS) {
  const settings = { ...SETTINGS, ...overrides };
  const clock = new FixedClock('2026-03-01T12:00:00.000Z');
  const persistence = createInMemoryPersistence();
  const { users, roles, refreshTokens } = persistence;
  const hasher = new CountingPasswordHasher();
  const accessTokens = new FakeAccessTokens(settings.accessTokenTtlMs);
  const pairs = new TokenPairIssuer(accessTokens, refreshTokens, settings);
  const createUser = new CreateUserHandler(users, roles, hasher, clock);
  const createRole = new CreateRoleHandler(roles);
  const lastAdmin = new LastAdminGuard(users, roles);
  const metrics = new RecordingMetrics();
  const throttle = new FakeLoginThrottle(budgets, clock);
  const loginHandler = new LoginHandler(users, hasher, pairs, clock, throttle, metrics);

  return {
    clock,
    persistence,
    hasher,
    accessTokens,
    settings,
    metrics,
    /** The login handler, from CLIENT_ADDRESS unless the command names another address. */
    login: {
      execute: (command: Omit<LoginCommand, 'clientAddress'> & Partial<LoginCommand>) =>
        loginHandler.execute(null, { clientAddress: CLIENT_ADDRESS, ...command }),
    },
    refresh: new RefreshSessionHandler(
      refreshTokens,
      users,
      pairs,
      new SuccessorSeal(SECRET),
      clock,
      settings,
    ),
    logout: new LogoutHandler(refreshTokens, clock),
    resolve: new ResolveAccountabilityHandler(accessTokens, users, roles, refreshTokens, clock, settings),
    createUser,
    createRole,
    updateUser: new UpdateUserHandler(users, roles, refreshTokens, hasher, clock, lastAdmin),
    updateCurrentUser: new UpdateCurrentUserHandler(users, refreshTokens, hasher, clock),
    deleteUser: new DeleteUserHandler(users, lastAdmin),
    updateRole: new UpdateRoleHandler(roles, lastAdmin),
    deleteRole: new DeleteRoleHandler(roles, lastAdmin),
    bootstrap: new BootstrapHandler(users, roles, createUser),
    /** A user with an ordinary role, created the way an admin would. */
    async user(command: Partial<CreateUserCommand> = {}) {
      const role = await createRole.execute(SYSTEM_ACCOUNTABILITY, { name: `Role ${Math.random()}` });
      return createUser.execute(SYSTEM_ACCOUNTABILITY, {
        email: 'ada@example.com',
        password: 'correct horse',
        role: role.id,
        ...command,
      });
    },
  };
}

export async function rejectsWith(promise: Promise<unknown>, code: string): Promise<void> {
  try {
    await promise;
  } catch (error) {
    const actual = (error as { code?: string }).code;
    if (actual !== code) throw new Error(`expected ${code}, got ${actual ?? String(error)}`);
    return;
  }
  throw new Error(`expected ${code}, but it succeeded`);
}
