import { availableParallelism } from 'node:os';
import { performance } from 'node:perf_hooks';
import { argon2id, hash, verify } from 'argon2';
import { type HashQueueMeter, NO_METRICS } from '../../application/ports/metrics.ts';
import type { PasswordHasher } from '../../application/ports/password-hasher.ts';

export type Argon2Cost = {
  /** KiB of memory per hash. */
  memoryCost: number;
  /** Passes over that memory. */
  timeCost: number;
  /** Lanes per hash. */
  parallelism: number;
};

export type Argon2PasswordHasherOptions = Partial<Argon2Cost> & {
  /** Hashes/verifications allowed to run at once; the rest wait in line. */
  concurrency?: number;
  /** Told the length of the line and each hash's wait in it. */
  meter?: HashQueueMeter;
};

/**
 * OWASP's argon2id baseline (m=19 MiB, t=2, p=1), ~20–26 ms per verification on the 2-core reference box.
 * argon2's own defaults (64 MiB, t=3, p=4) cost ~120 ms there: with two logins at a time that is ~16
 * logins/s, which turns the login endpoint into a cheap denial-of-service lever. Operators who can afford
 * more raise it through the options; existing hashes keep verifying because each carries its parameters.
 */
export const DEFAULT_ARGON2_COST: Readonly<Argon2Cost> = { memoryCost: 19_456, timeCost: 2, parallelism: 1 };

/** Sub-millisecond and insecure: only for tests that need real argon2id strings. */
export const TEST_ARGON2_COST: Readonly<Argon2Cost> = { memoryCost: 1024, timeCost: 1, parallelism: 1 };

/**
 * argon2 runs on libuv's threadpool, but each hash occupies a whole core: with as many hashes in flight as
 * cores, a login storm starves every read (bench: list p99 ×3 during 32 concurrent logins). One core is
 * kept for everything else.
 */
const DEFAULT_CONCURRENCY = Math.max(1, availableParallelism() - 1);

/** Hashed once per process to give `verify(null, …)` the cost of a real verification. */
const DUMMY_PASSWORD = 'datagate-timing-equaliser';

/**
 * argon2id password hashing with a bounded number of hashes in flight, so a login storm queues instead of
 * starving the threadpool.
 */
export class Argon2PasswordHasher implements PasswordHasher {
  private readonly cost: Argon2Cost;
  private readonly limited: Limiter;
  private dummyHash?: Promise<string>;

  constructor(options: Argon2PasswordHasherOptions = {}) {
    const { concurrency = DEFAULT_CONCURRENCY, meter, ...cost } = options;
    this.cost = { ...DEFAULT_ARGON2_COST, ...cost };
    this.limited = concurrencyLimiter(concurrency, meter);
  }

  hash(password: string): Promise<string> {
    return this.limited(() => hash(password, { type: argon2id, ...this.cost }));
  }

  async verify(stored: string | null, password: string): Promise<boolean> {
    if (stored === null) {
      // Same parameters, same work, same answer shape as a wrong password: unknown e-mails stay unknown.
      await this.check(await this.dummy(), password);
      return false;
    }
    return this.check(stored, password);
  }

  private async check(stored: string, password: string): Promise<boolean> {
    try {
      return await this.limited(() => verify(stored, password));
    } catch {
      // A malformed or unsupported stored hash: the password cannot be proven right.
      return false;
    }
  }

  /** Created on first need; a failure is not cached, so the next unknown-user login retries. */
  private dummy(): Promise<string> {
    this.dummyHash ??= this.hash(DUMMY_PASSWORD).catch((error: unknown) => {
      this.dummyHash = undefined;
      throw error;
    });
    return this.dummyHash;
  }
}

type Limiter = <T>(task: () => Promise<T>) => Promise<T>;

/** Runs at most `limit` tasks at once, the others in arrival order. Exported for its own test. */
export function concurrencyLimiter(
  limit: number,
  meter: HashQueueMeter = NO_METRICS.passwordHashes,
): Limiter {
  if (!Number.isInteger(limit) || limit < 1) {
    throw new Error('Argon2PasswordHasher: concurrency must be a positive integer');
  }
  let running = 0;
  const waiting: Array<() => void> = [];
  return async (task) => {
    const queuedAt = performance.now();
    if (running < limit) {
      running++;
    } else {
      // A finishing task hands its slot straight over, so no newcomer can overtake the queue.
      const slot = new Promise<void>((resolve) => waiting.push(resolve));
      meter.waiting(waiting.length);
      await slot;
      meter.waiting(waiting.length);
    }
    meter.started((performance.now() - queuedAt) / 1000);
    try {
      return await task();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else running--;
    }
  };
}
