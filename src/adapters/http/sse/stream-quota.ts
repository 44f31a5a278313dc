import { DomainError } from '../../../domain/errors.ts';

/**
 * Too many streams open for this caller or address: the next one is refused before it opens. A place frees
 * the moment one of them closes, which nothing here can foresee: `Retry-After` is 1 s, as for the other
 * quotas of held work (exports, imports).
 */
const tooManyStreams = (what: string) =>
  new DomainError('TOO_MANY_REQUESTS', `Too many event streams open for this ${what}; close one first.`, {
    reason: 'TOO_MANY_STREAMS',
    retryAfter: 1,
  });

/**
 * Counts the open event streams per user and per client address, in this process: a stream is a socket
 * and a subscription held for hours, so one caller may not hold more than its share.
 */
export class StreamQuota {
  private readonly byUser = new Map<string, number>();
  private readonly byAddress = new Map<string, number>();

  constructor(
    private readonly perUser: number,
    private readonly perAddress: number,
  ) {}

  /** Takes a place for one stream, or throws 429; returns what gives it back. */
  take(user: string | null, address: string): () => void {
    const userKey = user ?? `address ${address}`;
    if ((this.byUser.get(userKey) ?? 0) >= this.perUser) throw tooManyStreams('user');
    if ((this.byAddress.get(address) ?? 0) >= this.perAddress) throw tooManyStreams('address');
    increment(this.byUser, userKey, 1);
    increment(this.byAddress, address, 1);
    let given = false;
    return () => {
      if (given) return;
      given = true;
      increment(this.byUser, userKey, -1);
      increment(this.byAddress, address, -1);
    };
  }
}

function increment(counts: Map<string, number>, key: string, by: number): void {
  const count = (counts.get(key) ?? 0) + by;
  if (count === 0) counts.delete(key);
  else counts.set(key, count);
}
