import { performance } from 'node:perf_hooks';
import { tooManyConcurrentRequests } from '../../domain/errors.ts';
import { LruMap } from '../lru-map.ts';

export type CallerConcurrencySettings = {
  /** Requests of one caller served at once, always. */
  concurrency: number;
  /**
   * Requests of one caller served at once while the instance has room: past `concurrency`, a caller whose
   * requests are quick borrows turns as long as fewer than `burst` requests run on the instance in all.
   * `concurrency` or less: no borrowing.
   */
  burst: number;
  /** A caller's requests are quick while none has taken this long in the last minute, running ones included. */
  quickMs: number;
  /** Further requests of that caller that may wait for a turn; one more is refused at once. */
  queue: number;
  /** How long a request waits for a turn before it is refused. */
  queueTimeoutMs: number;
};

/** `take` hands the waiting request the start of its turn. */
type Waiter = { readonly take: (started: number) => void; readonly timer: NodeJS.Timeout };
type CallerTurns = {
  readonly waiting: Waiter[];
  /** When each of the caller's running turns began, oldest first: as many as it has running. */
  readonly started: number[];
  /** What the caller's finished requests say of its cost; undefined before the first. */
  record: CallerRecord | undefined;
};

/** `slowAt`: when a request of the caller last took `quickMs` or longer, if it ever did. */
type CallerRecord = { readonly slowAt: number | undefined };

/**
 * How long a slow request keeps its caller from borrowing. Long against the statement bound (5 s for a
 * read), so a caller alternating quick requests and floods of slow ones borrows for one of its floods a
 * minute at most, not for each.
 */
const SLOW_FOR_MS = 60_000;

/**
 * The records of callers with nothing in flight, so a client that sends one request at a time and then a
 * burst is known to be quick, and one that was slow stays known as such: bounded in entries (callers are as
 * many as addresses) and in age (as long as a slow request counts).
 */
const REMEMBERED_CALLERS = 10_000;

/**
 * No caller may hold more than its share of the server: each caller (a key) runs `concurrency` requests at
 * once, up to `queue` more wait in order for a turn, at most `queueTimeoutMs`; the rest get 429
 * TOO_MANY_REQUESTS with `Retry-After`. One caller flooding slow reads then holds `concurrency` database
 * connections, never the whole pool, and everybody else is served as before.
 *
 * The share is work-conserving (docs/decisions/0053): while the instance runs fewer than `burst` requests
 * in all, a caller whose requests are quick borrows more turns, so one busy client alone (a server with a
 * static token) is not held to `concurrency` on an idle instance. Borrowing never takes a guaranteed turn:
 * another caller always gets its `concurrency` at once, and with `burst` below the pool size it finds a free
 * connection. A slow request (`quickMs` or longer, running or in the last minute) stops its caller
 * borrowing, so the statements that make others wait stay at `concurrency` per caller. Waiting callers borrow in turn.
 *
 * In-process: the share is per instance (a budget across instances would live in PostgreSQL). Only callers
 * with requests in flight have an entry, so memory stays bounded by the requests being served, besides a
 * bounded memory of recent callers' records.
 */
export class CallerConcurrencyLimit {
  private readonly callers = new Map<string, CallerTurns>();
  /** Callers with requests waiting, in the order they may next borrow a turn. */
  private readonly borrowers = new Set<CallerTurns>();
  private readonly records: LruMap<string, CallerRecord>;
  /** Turns running on the instance, all callers together. */
  private running = 0;

  constructor(
    private readonly settings: CallerConcurrencySettings,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.records = new LruMap({ maxEntries: REMEMBERED_CALLERS, maxAgeMs: SLOW_FOR_MS, now });
  }

  async run<T>(caller: string, work: () => Promise<T>): Promise<T> {
    const turn = this.turn(caller);
    // A turn given at once is not a promise: no await, no tick, on the path of every request.
    const started = typeof turn === 'number' ? turn : await turn;
    try {
      return await work();
    } finally {
      this.done(caller, started);
    }
  }

  /** When the turn began, once the caller has one. */
  private turn(caller: string): number | Promise<number> {
    let turns = this.callers.get(caller);
    if (!turns) {
      turns = { waiting: [], started: [], record: this.records.get(caller) };
      this.callers.set(caller, turns);
    }
    if (
      turns.started.length < this.settings.concurrency ||
      (turns.waiting.length === 0 && this.mayBorrow(turns))
    ) {
      return this.take(turns);
    }
    if (turns.waiting.length >= this.settings.queue) return Promise.reject(this.refusal());
    const { waiting } = turns;
    const waitingCaller = turns;
    return new Promise<number>((resolve, reject) => {
      const waiter: Waiter = {
        take: resolve,
        timer: setTimeout(() => {
          waiting.splice(waiting.indexOf(waiter), 1);
          if (waiting.length === 0) this.borrowers.delete(waitingCaller);
          this.forget(caller, waitingCaller);
          reject(this.refusal());
        }, this.settings.queueTimeoutMs),
      };
      waiting.push(waiter);
      this.borrowers.add(waitingCaller);
    });
  }

  private take(turns: CallerTurns): number {
    const started = this.now();
    turns.started.push(started);
    this.running++;
    return started;
  }

  private done(caller: string, started: number): void {
    // A caller with a turn running keeps its entry.
    const turns = this.callers.get(caller)!;
    const now = this.now();
    turns.started.splice(turns.started.indexOf(started), 1);
    if (now - started >= this.settings.quickMs) turns.record = { slowAt: now };
    else turns.record ??= { slowAt: undefined };
    this.running--;
    if (turns.waiting.length > 0 && turns.started.length < this.settings.concurrency) this.admitNext(turns);
    this.lend();
    this.forget(caller, turns);
  }

  /** Lends the room the instance has to waiting callers whose requests are quick, one turn each in turn. */
  private lend(): void {
    for (const turns of this.borrowers) {
      if (this.running >= this.settings.burst) return;
      if (!this.mayBorrow(turns)) continue;
      this.admitNext(turns);
    }
  }

  private admitNext(turns: CallerTurns): void {
    const next = turns.waiting.shift();
    if (!next) return;
    // To the back of the line: the next turn lent goes to another waiting caller first.
    this.borrowers.delete(turns);
    if (turns.waiting.length > 0) this.borrowers.add(turns);
    clearTimeout(next.timer);
    next.take(this.take(turns));
  }

  private mayBorrow(turns: CallerTurns): boolean {
    const { burst, quickMs } = this.settings;
    if (turns.started.length >= burst || this.running >= burst) return false;
    const { record } = turns;
    if (record === undefined) return false;
    const now = this.now();
    if (record.slowAt !== undefined && now - record.slowAt < SLOW_FOR_MS) return false;
    const oldest = turns.started[0];
    return oldest === undefined || now - oldest < quickMs;
  }

  private forget(caller: string, turns: CallerTurns): void {
    if (turns.started.length > 0 || turns.waiting.length > 0) return;
    this.callers.delete(caller);
    if (turns.record !== undefined) this.records.set(caller, turns.record);
  }

  /** A turn frees up as soon as one of the caller's requests ends: a second is a fair guess. */
  private refusal() {
    return tooManyConcurrentRequests(1);
  }
}
