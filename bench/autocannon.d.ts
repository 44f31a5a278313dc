// autocannon 9 ships no types; only what bench/ uses.
declare module 'autocannon' {
  type Histogram = {
    average: number;
    mean: number;
    stddev: number;
    min: number;
    max: number;
    total: number;
    p50: number;
    p90: number;
    p99: number;
  };
  export type AutocannonOptions = {
    url: string;
    connections?: number;
    duration?: number;
    /** A fixed number of requests instead of a duration. */
    amount?: number;
    method?: 'GET' | 'POST' | 'PATCH';
    headers?: Record<string, string>;
    body?: string;
    timeout?: number;
  };
  export type AutocannonResult = {
    requests: Histogram;
    latency: Histogram;
    throughput: Histogram;
    errors: number;
    timeouts: number;
    non2xx: number;
    '2xx': number;
    duration: number;
  };
  /** Without a callback: an EventEmitter that is also a promise of the result. */
  export type AutocannonRun = PromiseLike<AutocannonResult> & {
    on(
      event: 'response',
      listener: (client: unknown, statusCode: number, bytes: number, milliseconds: number) => void,
    ): AutocannonRun;
  };
  export default function autocannon(options: AutocannonOptions): AutocannonRun;
}
