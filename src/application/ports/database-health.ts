/**
 * `busy`: the database answers, but every connection serving requests is in use and requests queue for
 * one: the instance is saturated, not broken (200, not 503).
 */
export type HealthCheckResult = { status: 'ok' | 'busy' | 'error'; detail?: string; responseTimeMs: number };

export interface DatabaseHealth {
  check(): Promise<HealthCheckResult>;
}
