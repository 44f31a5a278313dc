import { tmpdir } from 'node:os';
import * as assert from 'uvu/assert';
import { loadConfig } from '../../src/adapters/config/load-config.ts';
import { resolveSecret } from '../../src/adapters/config/resolve-secret.ts';
import { openMikroOrmPersistence } from '../../src/adapters/persistence/mikro-orm/open-mikro-orm-persistence.ts';
import { LOGIN_THROTTLE_TABLE } from '../../src/adapters/throttle/postgres-login-throttle.ts';
import { type RunningServer, startServer } from '../../src/main.ts';
import { type Answer, adminWithParcels, call, eventually, healthOf } from '../faults/http.ts';
import { createThrowawayDatabase, type ThrowawayDatabase } from '../faults/throwaway-database.ts';
import { administer, postgresSkip } from '../support/postgres-server.ts';
import { skippableSuite } from '../support/skippable-suite.ts';
import { TEST_SECRET } from '../support/test-app.ts';

const ADMIN = { email: 'admin@example.com', password: 'admin-password-123' };

type Context = { database: ThrowawayDatabase; server: RunningServer; token: string };

const lost = skippableSuite<Context>(
  'a database dropped under a running server, then re-created empty',
  postgresSkip,
);

lost.before(async (context) => {
  context.database = await createThrowawayDatabase('lost');
  const env = {
    NODE_ENV: 'test',
    SECRET: TEST_SECRET,
    LOG_LEVEL: 'silent',
    PORT: '0',
    DATA_DIR: tmpdir(),
    DATABASE_URL: context.database.url(),
    DB_CONNECT_TIMEOUT: '500',
    ADMIN_EMAIL: ADMIN.email,
    ADMIN_PASSWORD: ADMIN.password,
  };
  context.server = await startServer(resolveSecret(loadConfig({ env }), env));
  await context.server.ready;
});

lost.after(async ({ server, database }) => {
  await server?.close();
  await database?.drop();
});

/** Requests that read or write the server's own tables: login and the admin endpoints. */
const systemRequests = (context: Context): Array<Promise<Answer>> => {
  const { url } = context.server;
  const token = context.token;
  return [
    call(url, 'POST', '/auth/login', { body: ADMIN }),
    call(url, 'GET', '/users', { token }),
    call(url, 'GET', '/roles', { token }),
    call(url, 'GET', '/permissions', { token }),
  ];
};

/** Requests on a collection's rows. */
const itemRequests = (context: Context): Array<Promise<Answer>> => {
  const { url } = context.server;
  const token = context.token;
  return [
    call(url, 'GET', '/items/parcels/1', { token }),
    call(url, 'GET', '/items/parcels', { token }),
    call(url, 'POST', '/items/parcels', { token, body: { label: 'x' } }),
  ];
};

/** 503 SERVICE_UNAVAILABLE with `Retry-After`, never a 500. */
const assertUnavailable = (answer: Answer, reason?: string) => {
  assert.is(answer.status, 503, answer.text);
  const [error] = (answer.body as { errors: Array<{ extensions: Record<string, unknown> }> }).errors;
  assert.is(error.extensions.code, 'SERVICE_UNAVAILABLE', answer.text);
  assert.is(error.extensions.reason, reason, answer.text);
  assert.ok(Number(answer.headers.get('Retry-After')) >= 1, 'Retry-After');
  assert.is(error.extensions.retryAfter, Number(answer.headers.get('Retry-After')));
  assert.not.match(answer.text, contextSecret);
};
let contextSecret = /datagate_lost_/;

lost('the server serves before anything is lost', async (context) => {
  context.token = await adminWithParcels(context.server.url, ADMIN);
});

lost(
  'a dropped database: every request is 503 with Retry-After, health says the database is gone',
  async (context) => {
    contextSecret = new RegExp(context.database.name);
    await context.database.drop();
    const answers = await Promise.all([...systemRequests(context), ...itemRequests(context)]);
    for (const answer of answers) assertUnavailable(answer);
    const health = await call(context.server.url, 'GET', '/server/health');
    assert.is(health.status, 503, health.text);
    assert.is(healthOf(health).checks.database.detail, 'database does not exist (3D000)');
  },
);

lost(
  're-created empty: every request is 503 saying `datagate migrate` is needed, and so does health',
  async (context) => {
    await administer(`create database "${context.database.name}"`);
    await eventually(
      async () =>
        healthOf(await call(context.server.url, 'GET', '/server/health')).checks.database.detail !==
        'database does not exist (3D000)',
      5000,
    );
    for (const answer of await Promise.all(systemRequests(context))) {
      assertUnavailable(answer, 'MIGRATION_NEEDED');
    }
    // The collection went with the rest: the schema catalog, read again, says so. Never a 500.
    for (const answer of await Promise.all(itemRequests(context))) {
      assert.ok(answer.status === 404 || answer.status === 503, answer.text);
    }
    const health = await call(context.server.url, 'GET', '/server/health');
    assert.is(health.status, 503, health.text);
    assert.match(healthOf(health).checks.database.detail ?? '', 'datagate migrate');
    // The login throttle makes its own table of counters again (as on any first start): it holds no data,
    // so nothing that was lost is papered over. Everything else waits for the operator.
    const tables = await context.database.query(
      `select tablename from pg_tables where schemaname = current_schema() and tablename <> '${LOGIN_THROTTLE_TABLE}'`,
    );
    assert.equal(tables, [], 'the server created none of its tables by itself');
  },
);

lost(
  'after `datagate migrate` the server serves again without a restart, with no user left',
  async (context) => {
    const persistence = await openMikroOrmPersistence({ url: context.database.url(), dataDir: tmpdir() });
    try {
      await persistence.migrate();
    } finally {
      await persistence.close();
    }
    const health = await call(context.server.url, 'GET', '/server/health');
    assert.is(health.status, 200, health.text);
    // The admin went with the tables: `datagate bootstrap` (rather than `migrate`) creates one again.
    const login = await call(context.server.url, 'POST', '/auth/login', { body: ADMIN });
    assert.is(login.status, 401, login.text);
    assert.is(
      (login.body as { errors: [{ extensions: { code: string } }] }).errors[0].extensions.code,
      'INVALID_CREDENTIALS',
    );
    // The old token's user may still be in the in-process caches for up to a minute (decision 0005):
    // whatever it gets, never a 500.
    for (const answer of await Promise.all([...systemRequests(context).slice(1), ...itemRequests(context)])) {
      assert.ok(answer.status < 500, answer.text);
    }
  },
);

lost.run();
