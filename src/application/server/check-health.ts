import type { Handler } from '../handler.ts';
import type { DatabaseHealth, HealthCheckResult } from '../ports/database-health.ts';
import type { Readiness } from './readiness.ts';

export type HealthReport = { status: 'ok' | 'error'; checks: { database: HealthCheckResult } };

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
    if (database.status === 'ok' && pending !== undefined) {
      return {
        status: 'error',
        checks: { database: { ...database, status: 'error', detail: `starting: ${pending}` } },
      };
    }
    return { status: database.status, checks: { database } };
  }
}
