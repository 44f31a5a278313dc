// The messages between bench/realtime-fanout.ts and its load processes (bench/realtime-subscribers.ts).

/** Latency histograms count 0.1 ms buckets up to this many (10 s); slower arrivals land in the last one. */
export const HISTOGRAM_BUCKETS = 100_000;

/** Non-empty buckets only: [bucket (0.1 ms), count]. */
export type Histogram = Array<[number, number]>;

/** One write: when its request left the harness and when its response came back (ms since the epoch). */
export type Write = { seq: number; sent: number; responded: number };

export type ToLoader =
  | { type: 'open'; url: string; tokens: string[]; batch: number }
  | { type: 'written'; writes: Write[] }
  | { type: 'count' }
  | { type: 'finish' };

export type ToParent =
  | { type: 'opened'; opened: number; failed: number }
  | { type: 'counted'; arrivals: number }
  | {
      type: 'result';
      arrivals: number;
      unmatched: number;
      closedEarly: number;
      pings: number;
      fromRequest: Histogram;
      fromResponse: Histogram;
    };
