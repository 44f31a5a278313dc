/**
 * `busy`: the database answers, but every connection serving requests is in use and requests queue for
 * one: the instance is saturated, not broken (200, not 503).
 */
export type HealthCheckResult = { status: 'ok' | 'busy' | 'error'; detail?: string; responseTimeMs: number };

export interface DatabaseHealth {
  check(): Promise<HealthCheckResult>;
  /** The read replicas as last probed, in configured order; absent or empty without replicas. */
  replicas?(): ReplicaHealth[];
}

/**
 * A read replica as the last probe found it: `ok` serves reads, `lagging` (further behind than allowed) and
 * `down` (not answering, or not a standby) serve none until a probe finds them fit again. `lagMs`: how old
 * the newest data it may lack can be; null when down.
 */
export type ReplicaHealth = {
  status: 'ok' | 'lagging' | 'down';
  lagMs: number | null;
  detail?: string;
};
