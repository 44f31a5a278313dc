import { tooManyConcurrentRequests } from '../../domain/errors.ts';

export type CallerConcurrencySettings = {
  /** Requests of one caller served at once. */
  concurrency: number;
  /** Further requests of that caller that may wait for a turn; one more is refused at once. */
  queue: number;
  /** How long a request waits for a turn before it is refused. */
  queueTimeoutMs: number;
};

type Waiter = { readonly take: () => void; readonly timer: NodeJS.Timeout };
type CallerTurns = { running: number; readonly waiting: Waiter[] };

/**
 * No caller may hold more than its share of the server: each caller (a key) runs at most `concurrency`
 * requests at once, up to `queue` more wait in order for a turn, at most `queueTimeoutMs`; the rest get
 * 429 TOO_MANY_REQUESTS with `Retry-After`. One caller flooding slow reads then holds `concurrency`
 * database connections, never the whole pool, and everybody else is served as before.
 *
 * In-process: the share is per instance (a budget across instances would live in PostgreSQL). Only callers
 * with requests in flight have an entry, so memory stays bounded by the requests being served.
 */
export class CallerConcurrencyLimit {
  private readonly callers = new Map<string, CallerTurns>();

  constructor(private readonly settings: CallerConcurrencySettings) {}

  async run<T>(caller: string, work: () => Promise<T>): Promise<T> {
    await this.turn(caller);
    try {
      return await work();
    } finally {
      this.done(caller);
    }
  }

  private turn(caller: string): Promise<void> {
    let turns = this.callers.get(caller);
    if (!turns) {
      turns = { running: 0, waiting: [] };
      this.callers.set(caller, turns);
    }
    if (turns.running < this.settings.concurrency) {
      turns.running++;
      return Promise.resolve();
    }
    if (turns.waiting.length >= this.settings.queue) return Promise.reject(this.refusal());
    const waiting = turns.waiting;
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        // The finishing request hands its turn over: `running` stays as it is.
        take: resolve,
        timer: setTimeout(() => {
          waiting.splice(waiting.indexOf(waiter), 1);
          reject(this.refusal());
        }, this.settings.queueTimeoutMs),
      };
      waiting.push(waiter);
    });
  }

  private done(caller: string): void {
    const turns = this.callers.get(caller);
    if (!turns) return;
    const next = turns.waiting.shift();
    if (next) {
      clearTimeout(next.timer);
      next.take();
      return;
    }
    turns.running--;
    if (turns.running === 0) this.callers.delete(caller);
  }

  /** A turn frees up as soon as one of the caller's requests ends: a second is a fair guess. */
  private refusal() {
    return tooManyConcurrentRequests(1);
  }
}
