import type {
  AccessTokenClaims,
  AccessTokens,
  IssuedAccessToken,
  VerifiedAccessToken,
} from '../../application/ports/access-tokens.ts';
import { type CacheMeter, NO_METRICS } from '../../application/ports/metrics.ts';
import { tokenExpired } from '../../domain/errors.ts';
import { LruMap } from '../lru-map.ts';

/** A few megabytes at most; a busy server sees far fewer distinct live tokens than this. */
const MAX_ENTRIES = 10_000;

/**
 * Remembers tokens that verified, so a client sending the same token on every request pays for the
 * signature check once (it was 18 % of a read's CPU: bench/NOTES.md). Keyed by the exact token text —
 * the same bytes verify the same way, so a hit is as good as a verification, except for time, which is
 * checked again on every hit. Verification stays with the wrapped adapter (jose, paseto); failures are
 * not cached, since an attacker chooses them. Bounded, so a flood of valid tokens cannot grow memory.
 */
export class CachingAccessTokens implements AccessTokens {
  private readonly verified = new LruMap<string, VerifiedAccessToken>({
    maxEntries: MAX_ENTRIES,
    maxAgeMs: Number.POSITIVE_INFINITY,
    now: () => performance.now(),
  });

  constructor(
    private readonly inner: AccessTokens,
    private readonly meter: CacheMeter = NO_METRICS.cache('access_tokens'),
  ) {}

  issue(claims: AccessTokenClaims, now: Date): Promise<IssuedAccessToken> {
    return this.inner.issue(claims, now);
  }

  async verify(token: string, now: Date): Promise<VerifiedAccessToken> {
    const hit = this.verified.get(token);
    if (hit) {
      this.meter.hit();
      if (now.getTime() >= hit.expiresAt.getTime()) {
        this.verified.delete(token);
        throw tokenExpired();
      }
      return { ...hit };
    }
    this.meter.miss();
    const verified = await this.inner.verify(token, now);
    this.verified.set(token, verified);
    return { ...verified };
  }

  /**
   * For the change feed's lost channel, with every other cache. A verification depends on the token's
   * bytes and the secret only, never on stored records, so nothing else ever needs to drop one.
   */
  forgetAll(): void {
    this.verified.clear();
  }

  looksLikeAccessToken(token: string): boolean {
    return this.inner.looksLikeAccessToken(token);
  }
}
