import type { Accountability } from '../../domain/accountability.ts';
import { DomainError } from '../../domain/errors.ts';

/**
 * How many imports each user runs at once, at most `perUser` (`import.concurrencyPerUser`); the public
 * caller counts as one user. In-process, so per instance. One more is 429 TOO_MANY_REQUESTS at once: an
 * import holds a transaction and a connection for as long as its upload lasts, so it does not queue.
 */
export class ImportSlots {
  private readonly running = new Map<string, number>();

  constructor(private readonly perUser: number) {}

  /** Takes a slot for the caller; the returned function gives it back. */
  take(caller: Accountability): () => void {
    const key = caller.user ?? '';
    const count = this.running.get(key) ?? 0;
    if (count >= this.perUser) {
      throw new DomainError(
        'TOO_MANY_REQUESTS',
        'An import of this caller is already running. Try again once it ends.',
        {
          retryAfter: 1,
        },
      );
    }
    this.running.set(key, count + 1);
    return () => {
      const left = (this.running.get(key) ?? 1) - 1;
      if (left === 0) this.running.delete(key);
      else this.running.set(key, left);
    };
  }
}
