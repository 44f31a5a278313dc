import type { DatabaseHealth, HealthCheckResult } from '../ports/database-health.ts';

export type HealthReport = { status: 'ok' | 'error'; checks: { database: HealthCheckResult } };

/** Public on purpose (load balancers call it): it says whether things work, never how they are set up. */
export class CheckHealthHandler {
  constructor(private readonly database: DatabaseHealth) {}

  async execute(): Promise<HealthReport> {
    const database = await this.database.check();
    return { status: database.status, checks: { database } };
  }
}
