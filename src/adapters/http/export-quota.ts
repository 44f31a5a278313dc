import { DomainError } from '../../domain/errors.ts';

/**
 * Counts the exports running per caller (a user, or an anonymous client address), in this process: an
 * export holds the caller's turn and reads for as long as the file takes, so one caller may run only
 * `perCaller` at once; the next is refused with 429 before it starts.
 */
export class ExportQuota {
  private readonly running = new Map<string, number>();

  constructor(private readonly perCaller: number) {}

  /** Takes a place for one export, or throws 429; returns what gives it back (once). */
  take(caller: string): () => void {
    const count = this.running.get(caller) ?? 0;
    if (count >= this.perCaller) {
      throw new DomainError(
        'TOO_MANY_REQUESTS',
        'Too many exports running for this caller; wait for one to end.',
        {
          reason: 'TOO_MANY_EXPORTS',
          retryAfter: 1,
        },
      );
    }
    this.running.set(caller, count + 1);
    let given = false;
    return () => {
      if (given) return;
      given = true;
      const left = (this.running.get(caller) ?? 1) - 1;
      if (left === 0) this.running.delete(caller);
      else this.running.set(caller, left);
    };
  }
}
