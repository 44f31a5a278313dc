import * as assert from 'uvu/assert';
import { postgresSkip } from '../support/postgres-server.ts';
import { scrapeMetrics } from '../support/scrape-metrics.ts';
import { skippableSuite } from '../support/skippable-suite.ts';
import { freshGet } from './fresh-get.ts';
import { serve } from './serve-process.ts';
import { createThrowawayDatabase, type ThrowawayDatabase } from './throwaway-database.ts';

const SECRET = 'test-secret-of-at-least-32-characters-0123456789';
const REQUESTS = 8;

const workers = skippableSuite<{ database: ThrowawayDatabase }>(
  '/metrics with http.workers=2 on PostgreSQL',
  postgresSkip,
);

workers.before(async (context) => {
  context.database = await createThrowawayDatabase('workers_metrics');
});
workers.after(({ database }) => database.drop());

workers('the primary serves the sum of every worker, on the metrics port only', async ({ database }) => {
  const served = await serve(
    { SECRET, LOG_LEVEL: 'silent', HTTP_WORKERS: '2', METRICS_PORT: '0', DATABASE_URL: database.url() },
    /metrics on (http:\/\/127\.0\.0\.1:\d+)\/metrics/,
  );
  try {
    const metricsUrl = /metrics on (http:\/\/127\.0\.0\.1:\d+)\/metrics/.exec(served.stdout())![1]!;
    const port = Number(/listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(served.stdout())![1]);
    for (let n = 0; n < REQUESTS; n++) assert.is(await freshGet(port, '/server/health'), 200);
    assert.is(await freshGet(port, '/metrics'), 404, 'not on the API port');
    const scrape = await scrapeMetrics(metricsUrl);
    // Each worker took about half of them: only a sum over both counts them all.
    assert.is(
      scrape.total('datagate_http_requests_total', { route: '/server/health', status: '200' }),
      REQUESTS,
    );
    assert.ok(scrape.total('datagate_db_pool_max') >= 2 * 10, 'both workers’ pools');
  } finally {
    served.child.kill('SIGTERM');
    await served.exited;
  }
});

workers.run();
