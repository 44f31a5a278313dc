import type { Clock } from '../ports/clock.ts';
import { transformsBusy } from './image-refusals.ts';

export type TransformQueueSettings = {
  /** Transforms run at once (`storage.transforms.concurrency`). */
  readonly concurrency: number;
  /** Further transforms that may wait, in order, for a slot (`storage.transforms.queue`). */
  readonly queue: number;
};

/** How much of the running average a new duration replaces. */
const AVERAGE_WEIGHT = 0.2;

/**
 * Image work is CPU and memory: at most `concurrency` transforms run at once and `queue` more wait, so an
 * instance flooded with thumbnails holds a bounded amount of both. One more is refused at once with 503
 * SERVICE_UNAVAILABLE, whose `retryAfter` is how long the work ahead of it should take, from the recent
 * transforms' average duration. In-process, so per instance, as CPU and memory are.
 */
export class TransformQueue {
  private running = 0;
  private readonly waiting: Array<() => void> = [];
  private averageMs = 1000;

  constructor(
    private readonly settings: TransformQueueSettings,
    private readonly clock: Clock,
  ) {}

  async run<T>(work: () => Promise<T>): Promise<T> {
    await this.turn();
    const started = this.clock.now().getTime();
    try {
      return await work();
    } finally {
      const took = this.clock.now().getTime() - started;
      this.averageMs += (took - this.averageMs) * AVERAGE_WEIGHT;
      this.done();
    }
  }

  private turn(): Promise<void> {
    if (this.running < this.settings.concurrency) {
      this.running++;
      return Promise.resolve();
    }
    if (this.waiting.length >= this.settings.queue) {
      const ahead = this.running + this.waiting.length;
      return Promise.reject(transformsBusy((this.averageMs * ahead) / this.settings.concurrency / 1000));
    }
    return new Promise((take) => this.waiting.push(take));
  }

  private done(): void {
    const next = this.waiting.shift();
    // The finishing transform hands its slot over: `running` stays as it is.
    if (next) next();
    else this.running--;
  }
}
