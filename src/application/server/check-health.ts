import type { Handler } from '../handler.ts';
import type { ChangeFeed, ChangeFeedStatus } from '../ports/change-feed.ts';
import type { DatabaseHealth, HealthCheckResult, ReplicaHealth } from '../ports/database-health.ts';
import type { Readiness } from './readiness.ts';

/**
 * `ok` and `warn` (serving, but a check is not ok: the database connections are all busy, or a read
 * replica is out of service) answer 200; only `error` (the server cannot serve) answers 503, so an
 * orchestrator restarts an instance only when a restart could help. `replicas` only when configured.
 */
export type HealthReport = {
  status: 'ok' | 'warn' | 'error';
  checks: { database: HealthCheckResult; listener?: ListenerCheck; replicas?: ReplicaHealth[] };
};

/**
 * The change feed that keeps this instance's caches coherent with the others' (absent for a single
 * process, which has none): `reconnecting` is `warn`, as the instance serves correctly, reading through its
 * caches, only slower. `schema`: how schema changes made by hand are noticed.
 */
export type ListenerCheck = { status: 'ok' | 'reconnecting'; schema: ChangeFeedStatus['schema'] };

/** Public on purpose (load balancers call it): it says whether things work, never how they are set up. */
export class CheckHealthHandler implements Handler<void, HealthReport, null> {
  constructor(
    private readonly database: DatabaseHealth,
    private readonly readiness: Readiness,
    private readonly changes?: Pick<ChangeFeed, 'status'>,
  ) {}

  /**
   * A database that answers is not enough while start-up work is still pending (the next retry has not
   * come yet): the server cannot serve, so it reports why it is still starting.
   */
  async execute(_caller: null): Promise<HealthReport> {
    const database = await this.database.check();
    const pending = this.readiness.reason;
    if (database.status !== 'error' && pending !== undefined) {
      return {
        status: 'error',
        checks: { database: { ...database, status: 'error', detail: `starting: ${pending}` } },
      };
    }
    const replicas = this.database.replicas?.() ?? [];
    const listener = this.listener();
    const degraded =
      database.status === 'ok' &&
      (listener?.status === 'reconnecting' || replicas.some((replica) => replica.status !== 'ok'));
    return {
      status: degraded ? 'warn' : OVERALL[database.status],
      checks: { database, ...(listener ? { listener } : {}), ...(replicas.length ? { replicas } : {}) },
    };
  }

  private listener(): ListenerCheck | undefined {
    const feed = this.changes?.status();
    if (!feed || feed.listener === 'in-process') return undefined;
    return { status: feed.listener, schema: feed.schema };
  }
}

const OVERALL: Record<HealthCheckResult['status'], HealthReport['status']> = {
  ok: 'ok',
  busy: 'warn',
  error: 'error',
};
