import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import type { Container } from 'inversify';
import pino, { type Logger } from 'pino';
import { loadConfig } from '../../src/adapters/config/load-config.ts';
import { resolveSecret } from '../../src/adapters/config/resolve-secret.ts';
import { Argon2PasswordHasher, TEST_ARGON2_COST } from '../../src/adapters/crypto/argon2-password-hasher.ts';
import type { HttpApp } from '../../src/adapters/http/create-http-app.ts';
import { createGracefulServer } from '../../src/adapters/http/graceful-server.ts';
import { createInMemoryPersistence } from '../../src/adapters/persistence/memory/in-memory-persistence.ts';
import type { Persistence } from '../../src/adapters/persistence/persistence.ts';
import type { PasswordHasher } from '../../src/application/ports/password-hasher.ts';
import { type CreateRoleCommand, CreateRoleHandler } from '../../src/application/roles/create-role.ts';
import type { RoleView } from '../../src/application/roles/role-view.ts';
import { BootstrapHandler } from '../../src/application/setup/bootstrap.ts';
import { type CreateUserCommand, CreateUserHandler } from '../../src/application/users/create-user.ts';
import type { UserView } from '../../src/application/users/user-view.ts';
import { buildContainer, closeServerParts, TYPES } from '../../src/container.ts';
import { SYSTEM_ACCOUNTABILITY } from '../../src/domain/accountability.ts';
import { REALTIME_ATTACH, type RealtimeAttach } from '../../src/modules/realtime-http-module.ts';
import { FixedClock } from './fakes/fixed-clock.ts';

/** Fixed, so tokens minted in one run verify in the next; never used outside tests. */
export const TEST_SECRET = 'test-secret-of-at-least-32-characters-0123456789';

export type TestAppOptions = {
  /** Environment-variable overrides fed to `loadConfig` (docs/api.md §8), e.g. `{ ACCESS_TOKEN_TTL: '5m' }`. */
  env?: Record<string, string>;
  /** In-memory by default; pass another (e.g. PGlite) to run the same tests against it. */
  persistence?: Persistence;
  /** Runs after the test bindings and before the HTTP app is built: swap a port for a fake here. */
  rebind?: (container: Container) => void;
  /** Keep log lines (level info) in `logs` instead of discarding them. */
  captureLogs?: boolean;
};

export type TestResponse = {
  status: number;
  headers: Headers;
  /** Parsed JSON, or null for an empty body. */
  body: unknown;
  text: string;
};

export type RequestOptions = {
  /** Sent as JSON. */
  body?: unknown;
  /** Sent as is, for bodies JSON.stringify cannot make (malformed, other media types). */
  rawBody?: string;
  /** Sent as `Authorization: Bearer <token>`. */
  token?: string;
  headers?: Record<string, string>;
};

export type SeededUser = { id: string; email: string; password: string; role: string | null };

export type TokenPairBody = { access_token: string; expires: number; refresh_token: string };

export type TestApp = {
  url: string;
  container: Container;
  persistence: Persistence;
  /** Every time-dependent part of the app reads this clock; `advance()` it to expire tokens. */
  clock: FixedClock;
  /** Parsed log lines; empty unless `captureLogs` was set. */
  logs: Array<Record<string, unknown>>;
  request(method: string, path: string, options?: RequestOptions): Promise<TestResponse>;
  /** The first admin, made the way `datagate bootstrap` makes it. */
  seedAdmin(): Promise<SeededUser>;
  createRole(command?: Partial<CreateRoleCommand>): Promise<RoleView>;
  /** A user with a generated unique e-mail unless one is given; password `password-123` by default. */
  createUser(command?: Partial<CreateUserCommand>): Promise<SeededUser>;
  /** Logs in over HTTP and fails the test unless that answers 200. */
  login(user: Pick<SeededUser, 'email' | 'password'>): Promise<TokenPairBody>;
  close(): Promise<void>;
};

let counter = 0;

/**
 * The real composition root behind a real socket: in-memory persistence, a cheap argon2 preset, a
 * fixed clock and a fixed secret. Nothing is written to disk (files' bytes go to the backend: a map, or
 * large objects in the test database); the port is ephemeral.
 */
export async function startTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  // Files' bytes in the test database's large objects (in memory: the backend's own map), never on a disk.
  const env = {
    NODE_ENV: 'test',
    SECRET: TEST_SECRET,
    LOG_LEVEL: 'silent',
    STORAGE_DRIVER: 'postgres',
    ...options.env,
  };
  // SECRET is set, so resolveSecret never touches the data directory.
  const config = resolveSecret(loadConfig({ env }), env);
  const persistence = options.persistence ?? createInMemoryPersistence();
  await persistence.schema.refresh();
  const container = await buildContainer(config, persistence);

  const clock = new FixedClock(new Date());
  const logs: Array<Record<string, unknown>> = [];
  container.rebind<FixedClock>(TYPES.Clock).toConstantValue(clock);
  container
    .rebind<PasswordHasher>(TYPES.PasswordHasher)
    .toConstantValue(new Argon2PasswordHasher(TEST_ARGON2_COST));
  if (options.captureLogs) container.rebind<Logger>(TYPES.Logger).toConstantValue(collectingLogger(logs));
  options.rebind?.(container);

  const callback = container.get<HttpApp>(TYPES.HttpApp).callback();
  // The production server: what Node's parser refuses, and an HTTP/1.1 request without Host, are answered
  // in the contract's shape; `Expect: 100-continue` is answered once a route reads the body.
  const { server } = createGracefulServer((request, response) => void callback(request, response));
  // As main.ts does: the Directus WebSocket (docs/api.md §12) on the API's own server.
  const detachRealtime = container.get<RealtimeAttach>(REALTIME_ATTACH)(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const request: TestApp['request'] = async (method, path, { body, rawBody, token, headers = {} } = {}) => {
    const sent: Record<string, string> = { ...headers };
    if (token !== undefined) sent.Authorization = `Bearer ${token}`;
    if (body !== undefined) sent['Content-Type'] ??= 'application/json';
    const response = await fetch(`${url}${path}`, {
      method,
      headers: sent,
      body: rawBody ?? (body === undefined ? undefined : JSON.stringify(body)),
    });
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : null, text };
  };

  const createUser: TestApp['createUser'] = async (command = {}) => {
    const password = command.password ?? 'password-123';
    const view: UserView = await container.get(CreateUserHandler).execute(SYSTEM_ACCOUNTABILITY, {
      email: `user-${++counter}@example.com`,
      role: null,
      ...command,
      password,
    });
    return { id: view.id, email: view.email, password, role: view.role };
  };

  return {
    url,
    container,
    persistence,
    clock,
    logs,
    request,
    createUser,
    async seedAdmin() {
      const email = `admin-${++counter}@example.com`;
      const password = 'admin-password-123';
      await container.get(BootstrapHandler).execute(null, { adminEmail: email, adminPassword: password });
      const admin = await persistence.users.findByEmail(email);
      if (!admin) throw new Error('seedAdmin: bootstrap created no admin (one existed already?)');
      return { id: admin.id, email, password, role: admin.roleId };
    },
    createRole(command = {}) {
      return container
        .get(CreateRoleHandler)
        .execute(SYSTEM_ACCOUNTABILITY, { name: `role-${++counter}`, ...command });
    },
    async login(user) {
      const response = await request('POST', '/auth/login', {
        body: { email: user.email, password: user.password },
      });
      if (response.status !== 200) throw new Error(`login failed: ${response.status} ${response.text}`);
      return response.body as TokenPairBody;
    },
    async close() {
      detachRealtime();
      // fetch keeps connections alive; without closing them server.close() would wait for their timeout.
      server.closeAllConnections();
      await new Promise<void>((resolve, reject) =>
        server.close((error) => (error ? reject(error) : resolve())),
      );
      // As main.ts does: what the modules opened (the upload locks' pool), then the database.
      try {
        await closeServerParts(container);
      } finally {
        await persistence.close();
      }
    },
  };
}

function collectingLogger(lines: Array<Record<string, unknown>>): Logger {
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line) lines.push(JSON.parse(line));
      done();
    },
  });
  return pino({ level: 'info', base: undefined }, sink);
}

/** Runs `body` against a fresh app and closes it whatever happens: for tests that move the clock. */
export async function withTestApp(
  body: (app: TestApp) => Promise<void>,
  options: TestAppOptions = {},
): Promise<void> {
  const app = await startTestApp(options);
  try {
    await body(app);
  } finally {
    await app.close();
  }
}
