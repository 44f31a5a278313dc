import type { Counter, Histogram, Registry } from 'prom-client';
import type {
  CacheMeter,
  CacheName,
  DatabaseFailure,
  HashQueueMeter,
  LoginOutcome,
  Metrics,
  PoolUsage,
  ServedRequest,
} from '../../application/ports/metrics.ts';
import { promClient } from './prom-client-module.ts';

const CACHES: ReadonlyArray<CacheName> = [
  'users',
  'user_tokens',
  'roles',
  'sessions',
  'permissions',
  'access_tokens',
  'read_rules',
];
const LOGIN_OUTCOMES: ReadonlyArray<LoginOutcome> = ['success', 'failure', 'throttled'];
const DATABASE_FAILURES: ReadonlyArray<DatabaseFailure> = [
  'unreachable',
  'pool_exhausted',
  'statement_timeout',
  'tables_missing',
  'other',
];

/** A hash takes ~25 ms; a wait in the seconds is a login storm. */
const HASH_WAIT_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * The metrics of one server process in a registry of its own (so that several containers in one process,
 * as in the tests, do not collide), with prom-client's default process metrics: resident memory, heap,
 * event-loop lag, garbage collection. Every labelled series that can be known in advance starts at 0, so
 * a rate over it exists before the first event.
 */
export class PromClientMetrics implements Metrics {
  readonly registry: Registry;
  readonly passwordHashes: HashQueueMeter;
  private readonly requests: Counter<'route' | 'method' | 'status'>;
  private readonly latency: Histogram<'route' | 'method' | 'status'>;
  private readonly logins: Counter<'outcome'>;
  private readonly databaseFailures: Counter<'kind'>;
  private readonly caches = new Map<CacheName, CacheMeter>();
  private poolUsage: () => PoolUsage | undefined = () => undefined;

  constructor() {
    const { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } = promClient();
    this.registry = new Registry();
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry });
    // The count is also the histogram's `_count`; a counter of its own is what simpler tools (and text
    // parsers that drop a histogram's labels) can read.
    this.requests = new Counter({
      name: 'datagate_http_requests_total',
      help: 'HTTP requests answered, by route template (`unmatched`: no route), method and status.',
      labelNames: ['route', 'method', 'status'],
      registers,
    });
    this.latency = new Histogram({
      name: 'datagate_http_request_duration_seconds',
      help: 'Time to answer an HTTP request, by route template, method and status.',
      labelNames: ['route', 'method', 'status'],
      registers,
    });
    this.logins = new Counter({
      name: 'datagate_logins_total',
      help: 'Login attempts by outcome: success, failure (wrong e-mail or password, suspended user), throttled (429).',
      labelNames: ['outcome'],
      registers,
    });
    for (const outcome of LOGIN_OUTCOMES) this.logins.inc({ outcome }, 0);
    this.databaseFailures = new Counter({
      name: 'datagate_database_errors_total',
      help: 'Database failures that reached a caller, by kind: unreachable, pool_exhausted, statement_timeout, tables_missing, other.',
      labelNames: ['kind'],
      registers,
    });
    for (const kind of DATABASE_FAILURES) this.databaseFailures.inc({ kind }, 0);
    const lookups = new Counter({
      name: 'datagate_cache_lookups_total',
      help: 'Lookups of the in-process caches, by cache and result (hit: answered from memory; miss: read through).',
      labelNames: ['cache', 'result'],
      registers,
    });
    for (const cache of CACHES) {
      const hits = lookups.labels({ cache, result: 'hit' });
      const misses = lookups.labels({ cache, result: 'miss' });
      hits.inc(0);
      misses.inc(0);
      this.caches.set(cache, { hit: () => hits.inc(), miss: () => misses.inc() });
    }
    const hashQueue = new Gauge({
      name: 'datagate_password_hash_queue_length',
      help: 'argon2 hashes (logins, password changes) waiting for a slot (`auth.hashConcurrency`).',
      registers,
    });
    const hashWait = new Histogram({
      name: 'datagate_password_hash_wait_seconds',
      help: 'How long an argon2 hash waited for a slot before it ran.',
      buckets: HASH_WAIT_BUCKETS,
      registers,
    });
    this.passwordHashes = {
      waiting: (count) => hashQueue.set(count),
      started: (seconds) => hashWait.observe(seconds),
    };
    this.poolGauge('datagate_db_pool_size', 'Database connections open.', (usage) => usage.size);
    this.poolGauge('datagate_db_pool_max', 'Database connections the pool may open.', (usage) => usage.max);
    this.poolGauge('datagate_db_pool_in_use', 'Database connections checked out.', (usage) => usage.inUse);
    this.poolGauge(
      'datagate_db_pool_waiting',
      'Requests waiting for a database connection.',
      (usage) => usage.waiting,
    );
  }

  requestServed({ route, method, status, seconds }: ServedRequest): void {
    const labels = { route, method, status: String(status) };
    this.requests.inc(labels);
    this.latency.observe(labels, seconds);
  }

  loginAttempted(outcome: LoginOutcome): void {
    this.logins.inc({ outcome });
  }

  databaseFailed(kind: DatabaseFailure): void {
    this.databaseFailures.inc({ kind });
  }

  cache(name: CacheName): CacheMeter {
    return this.caches.get(name)!;
  }

  watchPool(usage: () => PoolUsage | undefined): void {
    this.poolUsage = usage;
  }

  /** The Prometheus text of every metric of this process. */
  exposition(): Promise<string> {
    return this.registry.metrics();
  }

  private poolGauge(name: string, help: string, read: (usage: PoolUsage) => number): void {
    const poolUsage = () => this.poolUsage();
    new (promClient().Gauge)({
      name,
      help,
      registers: [this.registry],
      collect() {
        const usage = poolUsage();
        if (usage) this.set(read(usage));
      },
    });
  }
}
