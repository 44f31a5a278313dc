export type HealthCheckResult = { status: 'ok' | 'error'; detail?: string; responseTimeMs: number };

export interface DatabaseHealth {
  check(): Promise<HealthCheckResult>;
}
