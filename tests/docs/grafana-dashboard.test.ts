import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { PromClientMetrics } from '../../src/adapters/metrics/prom-client-metrics.ts';

type Dashboard = { panels: Array<{ title: string; targets: Array<{ expr: string }> }> };

const dashboard: Dashboard = JSON.parse(
  readFileSync(new URL('../../docs/grafana-dashboard.json', import.meta.url), 'utf8'),
);

/** The series a query names; a histogram's `_bucket`, `_count` and `_sum` belong to the histogram. */
function metricNames(expr: string): string[] {
  const names = expr.match(/\b(?:datagate|nodejs|process)_[a-z0-9_]+/g) ?? [];
  return names.map((name) => name.replace(/_(bucket|count|sum)$/, ''));
}

test('every metric the sample dashboard queries is one the server exposes', () => {
  const { registry } = new PromClientMetrics();
  const queried = dashboard.panels.flatMap((panel) =>
    panel.targets.flatMap((target) => metricNames(target.expr)),
  );
  assert.ok(queried.length > 10);
  for (const name of new Set(queried)) assert.ok(registry.getSingleMetric(name), `${name} is not exposed`);
});

test('the sample dashboard shows what operators asked for', () => {
  const queried = new Set(
    dashboard.panels.flatMap((panel) => panel.targets.flatMap((target) => metricNames(target.expr))),
  );
  for (const name of [
    'datagate_http_requests_total',
    'datagate_http_request_duration_seconds',
    'datagate_db_pool_waiting',
    'datagate_cache_lookups_total',
    'datagate_logins_total',
    'datagate_password_hash_queue_length',
    'datagate_database_errors_total',
    'nodejs_eventloop_lag_p99_seconds',
    'process_resident_memory_bytes',
  ]) {
    assert.ok(queried.has(name), name);
  }
});

test.run();
