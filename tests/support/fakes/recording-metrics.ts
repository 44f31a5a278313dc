import type {
  CacheMeter,
  CacheName,
  DatabaseFailure,
  LoginOutcome,
  Metrics,
  PoolUsage,
  ServedRequest,
} from '../../../src/application/ports/metrics.ts';

/** Keeps what it is told, for tests that assert on what was measured rather than on the text format. */
export class RecordingMetrics implements Metrics {
  readonly requests: ServedRequest[] = [];
  readonly logins: LoginOutcome[] = [];
  readonly databaseFailures: DatabaseFailure[] = [];
  readonly lookups = new Map<CacheName, { hits: number; misses: number }>();
  readonly hashQueueLengths: number[] = [];
  readonly hashWaits: number[] = [];
  pool: () => PoolUsage | undefined = () => undefined;

  readonly passwordHashes = {
    waiting: (count: number) => {
      this.hashQueueLengths.push(count);
    },
    started: (waitedSeconds: number) => {
      this.hashWaits.push(waitedSeconds);
    },
  };

  requestServed(request: ServedRequest): void {
    this.requests.push(request);
  }

  loginAttempted(outcome: LoginOutcome): void {
    this.logins.push(outcome);
  }

  databaseFailed(kind: DatabaseFailure): void {
    this.databaseFailures.push(kind);
  }

  cache(name: CacheName): CacheMeter {
    const counts = this.lookupsOf(name);
    return {
      hit: () => {
        counts.hits++;
      },
      miss: () => {
        counts.misses++;
      },
    };
  }

  watchPool(usage: () => PoolUsage | undefined): void {
    this.pool = usage;
  }

  lookupsOf(name: CacheName): { hits: number; misses: number } {
    let counts = this.lookups.get(name);
    if (!counts) {
      counts = { hits: 0, misses: 0 };
      this.lookups.set(name, counts);
    }
    return counts;
  }
}
