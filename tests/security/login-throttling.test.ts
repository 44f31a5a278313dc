import pg from 'pg';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { assertError, firstError } from '../http/scenario.ts';
import { administer, postgresSkip, testDatabaseUrl } from '../support/postgres-server.ts';
import { skippableSuite } from '../support/skippable-suite.ts';
import { type SeededUser, startTestApp, type TestApp, withTestApp } from '../support/test-app.ts';

const FIFTEEN_MINUTES_IN_SECONDS = 15 * 60;

function attempt(app: TestApp, user: Pick<SeededUser, 'email' | 'password'>, headers = {}) {
  return app.request('POST', '/auth/login', {
    body: { email: user.email, password: user.password },
    headers,
  });
}

async function failFiveTimes(app: TestApp, user: SeededUser, headers = {}) {
  for (let failure = 0; failure < 5; failure++) {
    assertError(await attempt(app, { ...user, password: 'wrong' }, headers), 401, 'INVALID_CREDENTIALS');
  }
}

const memory = suite('login throttling over HTTP (default budgets, memory store)');

memory('after five failures even the right password gets 429 with Retry-After in whole seconds', () =>
  withTestApp(async (app) => {
    const ada = await app.createUser();
    await failFiveTimes(app, ada);
    const refused = await attempt(app, ada);
    assertError(refused, 429, 'TOO_MANY_REQUESTS');
    const retryAfter = refused.headers.get('retry-after') ?? '';
    assert.match(retryAfter, /^\d+$/);
    assert.ok(Number(retryAfter) > 0 && Number(retryAfter) <= FIFTEEN_MINUTES_IN_SECONDS, retryAfter);
    assert.is(firstError(refused).extensions.retryAfter, Number(retryAfter));
  }),
);

memory('another user logs in from the same address meanwhile', () =>
  withTestApp(async (app) => {
    const ada = await app.createUser();
    const bob = await app.createUser();
    await failFiveTimes(app, ada);
    assertError(await attempt(app, ada), 429, 'TOO_MANY_REQUESTS');
    await app.login(bob);
  }),
);

memory('behind a trusted proxy, failures from one client do not lock the user out at another', () =>
  withTestApp(
    async (app) => {
      const ada = await app.createUser();
      await failFiveTimes(app, ada, { 'X-Forwarded-For': '203.0.113.9' });
      assertError(await attempt(app, ada, { 'X-Forwarded-For': '203.0.113.9' }), 429, 'TOO_MANY_REQUESTS');
      assert.is((await attempt(app, ada, { 'X-Forwarded-For': '198.51.100.7' })).status, 200);
    },
    { env: { TRUST_PROXY: 'true' } },
  ),
);

memory('LOGIN_THROTTLE=false turns throttling off', () =>
  withTestApp(
    async (app) => {
      const ada = await app.createUser();
      for (let round = 0; round < 3; round++) await failFiveTimes(app, ada);
      await app.login(ada);
    },
    { env: { LOGIN_THROTTLE: 'false' } },
  ),
);

memory('the PostgreSQL store without a database URL stops the app from starting', async () => {
  try {
    const app = await startTestApp({ env: { LOGIN_THROTTLE_STORE: 'postgres' } });
    await app.close();
    assert.unreachable('the app started');
  } catch (error) {
    assert.match(String(error), /auth\.throttle\.store: postgres needs database\.url/);
  }
});

memory.run();

const shared = skippableSuite(
  'login throttling over HTTP on PostgreSQL (LOGIN_THROTTLE_STORE=postgres)',
  postgresSkip,
);
const database = `datagate_throttle_http_${process.pid}_${Date.now().toString(36)}`;

shared.before(() => administer(`create database "${database}"`));
shared.after(() => administer(`drop database if exists "${database}" with (force)`));

/** `email`: each case counts its own, as the servers of every case share one throttle table. */
async function twoServersShareTheBudget(email: string, env: Record<string, string>) {
  const [one, two] = [await startTestApp({ env }), await startTestApp({ env })];
  try {
    const ada = { email, password: 'password-123' };
    const [adaOnOne] = [await one.createUser(ada), await two.createUser(ada)];
    const bob = await two.createUser();
    await failFiveTimes(one, adaOnOne);
    const refused = await attempt(two, ada);
    assertError(refused, 429, 'TOO_MANY_REQUESTS');
    assert.match(refused.headers.get('retry-after') ?? '', /^\d+$/);
    await two.login(bob);
  } finally {
    for (const app of [one, two]) await app.close();
  }
}

shared('two servers on one database share the budget', () =>
  twoServersShareTheBudget('ada@example.com', {
    LOGIN_THROTTLE_STORE: 'postgres',
    DATABASE_URL: testDatabaseUrl(database),
  }),
);

shared('on a PostgreSQL server they share it by default, with no store configured', () =>
  twoServersShareTheBudget('grace@example.com', { DATABASE_URL: testDatabaseUrl(database) }),
);

shared("closing the server ends the throttle's own pool", async () => {
  const connections = async () => {
    const client = new pg.Client({ connectionString: testDatabaseUrl() });
    await client.connect();
    try {
      const { rows } = await client.query<{ count: number }>(
        "select count(*)::int as count from pg_stat_activity where datname = $1 and application_name = 'datagate login throttle'",
        [database],
      );
      return rows[0]!.count;
    } finally {
      await client.end();
    }
  };
  const app = await startTestApp({
    env: { LOGIN_THROTTLE_STORE: 'postgres', DATABASE_URL: testDatabaseUrl(database) },
  });
  try {
    await app.login(await app.createUser({ email: 'closing@example.com' }));
    assert.ok((await connections()) >= 1, 'the login went through the throttle on PostgreSQL');
  } finally {
    await app.close();
  }
  assert.is(await connections(), 0);
});

shared.run();
