import { performance } from 'node:perf_hooks';
import { traceRoundWritten } from '../realtime-delivery-trace.ts';

/** A stream whose writes can be held back and let go together: a socket, an HTTP response. */
export type Corkable = { cork(): void; uncork(): void };

/**
 * The realtime transports' writes, gathered in rounds: a stream written to is corked until the round ends,
 * so that everything a round sends it leaves in one system call — a system call per socket per event was
 * most of the cost of a fan-out (docs/decisions/0040). A round ends at the end of the tick it began in, and
 * never sooner than `spacingMs` after the previous one ended: a stream of changes then costs at most one
 * system call per socket per `spacingMs`, however many changes it carries, at the price of up to that much
 * latency, while a change that comes alone leaves at once (docs/decisions/0047).
 */
export class WriteRounds {
  private readonly held = new Set<Corkable>();
  private ending = false;
  private lastEnd = Number.NEGATIVE_INFINITY;

  constructor(private readonly spacingMs = 0) {}

  /** Holds what `stream` is written from now until the round ends; call before each write. */
  hold(stream: Corkable): void {
    if (this.held.has(stream)) return;
    stream.cork();
    this.held.add(stream);
    if (this.ending) return;
    this.ending = true;
    const wait = this.lastEnd + this.spacingMs - performance.now();
    if (wait > 0) setTimeout(() => this.end(), wait);
    else process.nextTick(() => this.end());
  }

  /** Lets what `stream` holds in this round go now, if it holds any. */
  flush(stream: Corkable): void {
    if (!this.held.delete(stream)) return;
    stream.uncork();
  }

  /**
   * Whether writing `bytes` more to `stream` would pass `limit` because its client has not taken what was
   * written before (`queued`: the bytes the stream has not handed on yet). What the round holds back is the
   * server's own doing, so it goes to the socket before the client is judged (a burst of changes larger than
   * the limit reaches a client that reads); and a message alone is written whatever its size (an `init`, a
   * large row), as it could never be written otherwise.
   */
  readsTooSlowly(stream: Corkable, queued: () => number, bytes: number, limit: number): boolean {
    if (queued() + bytes <= limit) return false;
    this.flush(stream);
    const waiting = queued();
    return waiting > 0 && waiting + bytes > limit;
  }

  private end(): void {
    this.ending = false;
    this.lastEnd = performance.now();
    const streams = [...this.held];
    this.held.clear();
    for (const stream of streams) stream.uncork();
    traceRoundWritten(streams.length);
  }
}
