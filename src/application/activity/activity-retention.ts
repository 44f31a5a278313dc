import type { ActivityLog } from '../ports/activity-log.ts';
import type { Clock } from '../ports/clock.ts';

export type RetentionSettings = {
  /** `activity.retention`; 0 keeps everything. */
  readonly retentionMs: number;
  readonly intervalMs: number;
  readonly batch: number;
};

/** Batches per run at most, so one run stays short however far behind it is; the next run goes on. */
const MAX_BATCHES_PER_RUN = 100;

/**
 * Deletes activity older than `activity.retention` (docs/api.md §14) on a timer, a batch at a time. The
 * log's `prune` never waits on a lock and lets one instance prune at a time, so running this on every
 * instance is safe; a failed run (the database away) is simply tried again at the next tick.
 */
export class ActivityRetention {
  private timer: NodeJS.Timeout | undefined;
  private running = false;

  constructor(
    private readonly log: ActivityLog,
    private readonly clock: Clock,
    private readonly settings: RetentionSettings,
  ) {}

  start(): void {
    if (this.settings.retentionMs === 0 || this.timer) return;
    this.timer = setInterval(() => {
      if (this.running) return;
      this.running = true;
      this.run()
        .catch(() => {})
        .finally(() => {
          this.running = false;
        });
    }, this.settings.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** One run: batches until one comes back short. Returns how many entries it deleted. */
  async run(): Promise<number> {
    if (this.settings.retentionMs === 0) return 0;
    const before = new Date(this.clock.now().getTime() - this.settings.retentionMs);
    let deleted = 0;
    for (let batch = 0; batch < MAX_BATCHES_PER_RUN; batch++) {
      const count = await this.log.prune(before, this.settings.batch);
      deleted += count;
      if (count < this.settings.batch) break;
    }
    return deleted;
  }
}
