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

  /**
   * Lets what `stream` holds in this round go now, if it holds any: what the realtime transports measure to
   * tell a client that reads too slowly must be what the client has not taken, not what the round held back.
   */
  flush(stream: Corkable): void {
    if (!this.held.delete(stream)) return;
    stream.uncork();
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
