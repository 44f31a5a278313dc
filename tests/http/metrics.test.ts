import { tmpdir } from 'node:os';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { loadConfig } from '../../src/adapters/config/load-config.ts';
import { resolveSecret } from '../../src/adapters/config/resolve-secret.ts';
import { IN_MEMORY } from '../../src/adapters/persistence/mikro-orm/embedded-postgres.ts';
import { type Metrics, NO_METRICS } from '../../src/application/ports/metrics.ts';
import { TYPES } from '../../src/container.ts';
import { type RunningServer, startServer } from '../../src/main.ts';
import { call } from '../faults/http.ts';
import { createThrowawayDatabase, type ThrowawayDatabase } from '../faults/throwaway-database.ts';
import { postgresSkip } from '../support/postgres-server.ts';
import { type Scrape, scrapeMetrics } from '../support/scrape-metrics.ts';
import { skippableSuite } from '../support/skippable-suite.ts';
import { TEST_SECRET, withTestApp } from '../support/test-app.ts';

const ADMIN = { email: 'admin@example.com', password: 'admin-password-123' };
/** Parts of requested paths that must never become label values. */
const RAW_COLLECTION = 'no_such_collection_7f3a';
const RAW_PATH = '/no/such/path/9c1e';
const REQUESTS = 'datagate_http_requests_total';
const LATENCY = 'datagate_http_request_duration_seconds';

type Context = { server: RunningServer; scrape: Scrape };

/** A server with metrics on a port of their own, some traffic through it, then one scrape. */
async function serveAndScrape(context: Context, database: Record<string, string>): Promise<void> {
  const env = {
    NODE_ENV: 'test',
    SECRET: TEST_SECRET,
    LOG_LEVEL: 'silent',
    PORT: '0',
    METRICS_PORT: '0',
    ADMIN_EMAIL: ADMIN.email,
    ADMIN_PASSWORD: ADMIN.password,
    ...database,
  };
  context.server = await startServer(resolveSecret(loadConfig({ env }), env));
  await context.server.ready;
  const { url } = context.server;
  const login = await call(url, 'POST', '/auth/login', { body: ADMIN });
  assert.is(login.status, 200, login.text);
  const token = (login.body as { access_token: string }).access_token;
  const wrong = await call(url, 'POST', '/auth/login', { body: { ...ADMIN, password: 'wrong-password' } });
  assert.is(wrong.status, 401);
  for (let i = 0; i < 3; i++) assert.is((await call(url, 'GET', '/users/me', { token })).status, 200);
  assert.is((await call(url, 'GET', `/items/${RAW_COLLECTION}`, { token })).status, 404);
  assert.is((await call(url, 'GET', RAW_PATH)).status, 404);
  assert.is((await call(url, 'GET', '/server/health')).status, 200);
  context.scrape = await scrapeMetrics(context.server.metricsUrl!);
}

/** `database`: the environment naming the database; `cleanUp`: what to do once the server is closed. */
function metricsSuite(
  title: string,
  skip: string | undefined,
  database: () => Promise<Record<string, string>>,
  cleanUp?: () => Promise<void>,
) {
  const test = skippableSuite<Context>(title, skip);
  test.before(async (context) => serveAndScrape(context, await database()));
  test.after(async (context) => {
    await context.server?.close();
    await cleanUp?.();
  });

  test('requests are counted by route template, method and status', ({ scrape }) => {
    assert.is(scrape.total(REQUESTS, { route: '/auth/login', method: 'POST', status: '200' }), 1);
    assert.is(scrape.total(REQUESTS, { route: '/auth/login', method: 'POST', status: '401' }), 1);
    assert.is(scrape.total(REQUESTS, { route: '/users/me', method: 'GET', status: '200' }), 3);
    assert.is(scrape.total(REQUESTS, { route: '/items/:collection', method: 'GET', status: '404' }), 1);
    assert.is(scrape.total(REQUESTS, { route: 'unmatched', method: 'GET', status: '404' }), 1);
  });

  test('latency is a histogram with the same labels', ({ scrape }) => {
    const [latency] = scrape.samples(LATENCY);
    assert.is(scrape.families.find((family) => family.name === LATENCY)?.type, 'HISTOGRAM');
    assert.ok(Object.keys(latency?.buckets ?? {}).length > 1);
    assert.match(scrape.text, `${LATENCY}_count{route="/users/me",method="GET",status="200"} 3\n`);
  });

  test('route labels are templates, never the paths clients sent', ({ scrape }) => {
    const routes = scrape.samples(REQUESTS).map((sample) => sample.labels?.route ?? '');
    assert.ok(routes.length > 0);
    for (const route of routes) {
      assert.ok(route === 'unmatched' || route.startsWith('/'), route);
      assert.not.match(route, RAW_COLLECTION);
      assert.not.match(route, RAW_PATH);
    }
  });

  test('the database pool is measured', ({ scrape }) => {
    assert.ok(scrape.total('datagate_db_pool_size') >= 1, 'connections open');
    assert.ok(scrape.total('datagate_db_pool_max') >= scrape.total('datagate_db_pool_size'));
    assert.ok(scrape.total('datagate_db_pool_in_use') >= 0);
    assert.is(scrape.total('datagate_db_pool_waiting'), 0);
  });

  test('logins, caches and password hashes are measured', ({ scrape }) => {
    assert.is(scrape.total('datagate_logins_total', { outcome: 'success' }), 1);
    assert.is(scrape.total('datagate_logins_total', { outcome: 'failure' }), 1);
    assert.is(scrape.total('datagate_logins_total', { outcome: 'throttled' }), 0);
    assert.ok(scrape.total('datagate_cache_lookups_total', { cache: 'access_tokens', result: 'hit' }) >= 2);
    assert.ok(scrape.total('datagate_cache_lookups_total', { cache: 'users', result: 'hit' }) >= 2);
    assert.ok(scrape.total('datagate_password_hash_wait_seconds') >= 2, 'one hash per login');
    assert.is(scrape.total('datagate_password_hash_queue_length'), 0);
    assert.is(scrape.total('datagate_database_errors_total'), 0);
  });

  test('memory and event-loop lag come with the process metrics', ({ scrape }) => {
    assert.ok(scrape.total('process_resident_memory_bytes') > 0);
    assert.ok(scrape.total('nodejs_heap_size_used_bytes') > 0);
    assert.is(scrape.samples('nodejs_eventloop_lag_seconds').length, 1);
  });

  test('metrics are on their own port, on the loopback address, and nowhere on the API port', async ({
    server,
  }) => {
    assert.match(server.metricsUrl!, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.is.not(server.metricsUrl, server.url);
    const onApi = await call(server.url, 'GET', '/metrics');
    assert.is(onApi.status, 404);
    assert.not.match(onApi.text, 'datagate_');
  });

  test('the metrics port serves /metrics alone, and only to GET', async ({ server }) => {
    const elsewhere = await fetch(`${server.metricsUrl}/items/articles`);
    assert.is(elsewhere.status, 404);
    const posted = await fetch(`${server.metricsUrl}/metrics`, { method: 'POST' });
    assert.is(posted.status, 405);
    assert.is(posted.headers.get('allow'), 'GET, HEAD');
  });

  return test;
}

/** The throwaway databases of the PostgreSQL suite, dropped after it. */
const databases = (() => {
  const made: ThrowawayDatabase[] = [];
  return {
    async create() {
      const database = await createThrowawayDatabase('metrics');
      made.push(database);
      return database;
    },
    async dropAll() {
      for (const database of made.splice(0)) await database.drop();
    },
  };
})();

metricsSuite('/metrics on embedded PGlite', undefined, async () => ({ DATA_DIR: IN_MEMORY })).run();

metricsSuite(
  '/metrics on PostgreSQL',
  postgresSkip,
  async () => ({ DATA_DIR: tmpdir(), DATABASE_URL: (await databases.create()).url() }),
  () => databases.dropAll(),
).run();

const byDefault = suite('/metrics by default');

byDefault('without metrics.port nothing is measured, and /metrics is a plain 404 on the API port', () =>
  withTestApp(async (app) => {
    assert.is(app.container.get<Metrics>(TYPES.Metrics), NO_METRICS);
    const response = await app.request('GET', '/metrics');
    assert.is(response.status, 404);
    assert.is(
      (response.body as { errors: [{ extensions: { code: string } }] }).errors[0].extensions.code,
      'NOT_FOUND',
    );
  }),
);

byDefault.run();
