// The messages between bench/realtime-fanout.ts and its load processes (bench/realtime-subscribers.ts).

/** Latency histograms count 0.1 ms buckets up to this many (10 s); slower arrivals land in the last one. */
export const HISTOGRAM_BUCKETS = 100_000;

/** Non-empty buckets only: [bucket (0.1 ms), count]. */
export type Histogram = Array<[number, number]>;

/** One write: when its request left the harness and when its response came back (ms since the epoch). */
export type Write = { seq: number; sent: number; responded: number };

/**
 * One write as the server traced it (bench/realtime-probe.mjs): when it heard the commit's NOTIFY and when it
 * had written the change to every socket (ms since the epoch).
 */
export type Served = { seq: number; woken: number; written: number };

export type ToLoader =
  | { type: 'open'; url: string; tokens: string[]; batch: number }
  | { type: 'written'; writes: Write[] }
  | { type: 'served'; changes: Served[] }
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
      /** Against the server's NOTIFY heard (≈ the commit) and its last socket write; arrivals it traced only. */
      fromWoken: Histogram;
      afterWritten: Histogram;
      untraced: number;
    };
