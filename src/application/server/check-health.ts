import type { Handler } from '../handler.ts';
import type { DatabaseHealth, HealthCheckResult } from '../ports/database-health.ts';
import type { Readiness } from './readiness.ts';

/**
 * `ok` and `warn` (serving, but a check is not ok: the database connections are all busy) answer 200;
 * only `error` (the server cannot serve) answers 503, so an orchestrator restarts an instance only when
 * a restart could help.
 */
export type HealthReport = { status: 'ok' | 'warn' | 'error'; checks: { database: HealthCheckResult } };

/** Public on purpose (load balancers call it): it says whether things work, never how they are set up. */
export class CheckHealthHandler implements Handler<void, HealthReport, null> {
  constructor(
    private readonly database: DatabaseHealth,
    private readonly readiness: Readiness,
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
    return { status: OVERALL[database.status], checks: { database } };
  }
}

const OVERALL: Record<HealthCheckResult['status'], HealthReport['status']> = {
  ok: 'ok',
  busy: 'warn',
  error: 'error',
};
