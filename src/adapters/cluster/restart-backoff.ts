export type RestartBackoffOptions = {
  /** Delay before replacing a worker that had served a while, and the first step of the doubling. */
  readonly baseMs: number;
  /** The longest a replacement waits, however often workers keep dying. */
  readonly maxMs: number;
  /** A worker that lived at least this long was healthy: its death starts the doubling afresh. */
  readonly stableAfterMs: number;
};

export const DEFAULT_RESTART_BACKOFF: RestartBackoffOptions = {
  baseMs: 200,
  maxMs: 30_000,
  stableAfterMs: 10_000,
};

/**
 * How long to wait before replacing a dead worker. A worker that dies young (a bad deploy, a database
 * that refuses every connection) would otherwise be replaced in a tight loop that spins the CPU and floods
 * the log: each quick death doubles the wait, up to `maxMs`, and one that had lived long resets it.
 */
export class RestartBackoff {
  private quickDeaths = 0;

  constructor(private readonly options: RestartBackoffOptions = DEFAULT_RESTART_BACKOFF) {}

  /** The delay before replacing a worker that lived `livedMs`. */
  next(livedMs: number): number {
    if (livedMs >= this.options.stableAfterMs) this.quickDeaths = 0;
    const delay = Math.min(this.options.maxMs, this.options.baseMs * 2 ** this.quickDeaths);
    if (livedMs < this.options.stableAfterMs) this.quickDeaths++;
    return delay;
  }
}
