import { type CacheMeter, NO_METRICS } from '../../application/ports/metrics.ts';
import type { RefreshTokenRepository } from '../../application/ports/refresh-token-repository.ts';
import type { RefreshToken } from '../../domain/refresh-token.ts';
import { CACHE_DEFAULTS, LruMap } from '../lru-map.ts';
import { ALONE, type Coherence } from './caching-coherence.ts';

/** What is known of one session: active at least until `until`, or inactive from `since` on. */
type SessionState = { active: true; until: number } | { active: false; since: number };

export type CachingRefreshTokenOptions = {
  /** How far ahead an active session is vouched for; also how late a revocation made elsewhere is seen. */
  horizonMs: number;
  maxEntries: number;
  coherence: Coherence;
  meter: CacheMeter;
};

/**
 * Serves `isSessionActive` — asked on every request when `auth.checkSessionOnEachRequest` is on — from
 * memory. Without changes, a session's activity only ends with time, so the store is asked whether the
 * session is still active `horizonMs` ahead: if so, it is active until then (no token expires sooner)
 * and the answer is kept until then; an inactive session stays inactive (revocations are final, and
 * only an active session gets new tokens), so that answer is kept too. Every change made through this
 * repository drops what it may affect before returning.
 *
 * A revocation made through another server instance or by SQL arrives through the change feed
 * (`forgetSession`); while the feed is not live, every question reads through. The horizon still bounds
 * how long an answer is kept, a safety net only (docs/decisions/0015).
 */
export class CachingRefreshTokenRepository implements RefreshTokenRepository {
  private readonly sessions: LruMap<string, SessionState>;
  private readonly horizonMs: number;
  /** Bumped by every invalidation, so a read that started before it does not store what it read. */
  private generation = 0;
  private readonly coherence: Coherence;
  private readonly meter: CacheMeter;

  constructor(
    private readonly inner: RefreshTokenRepository,
    options: Partial<CachingRefreshTokenOptions> = {},
  ) {
    this.coherence = options.coherence ?? ALONE;
    this.meter = options.meter ?? NO_METRICS.cache('sessions');
    this.horizonMs = options.horizonMs ?? CACHE_DEFAULTS.maxAgeMs;
    // Entries carry their own validity in the callers' time, so the map itself does not age them.
    this.sessions = new LruMap({
      ...CACHE_DEFAULTS,
      maxAgeMs: Number.POSITIVE_INFINITY,
      maxEntries: options.maxEntries ?? CACHE_DEFAULTS.maxEntries,
    });
  }

  async add(token: RefreshToken) {
    try {
      await this.inner.add(token);
    } finally {
      this.forget(token.sessionId);
    }
  }

  async addFirstOfSession(token: RefreshToken, passwordHash: string) {
    try {
      return await this.inner.addFirstOfSession(token, passwordHash);
    } finally {
      this.forget(token.sessionId);
    }
  }

  findByDigest(digest: string) {
    return this.inner.findByDigest(digest);
  }

  async rotate(spentId: string, successor: RefreshToken, sealedSuccessor: string, at: Date) {
    try {
      return await this.inner.rotate(spentId, successor, sealedSuccessor, at);
    } finally {
      this.forget(successor.sessionId);
    }
  }

  async revokeSession(sessionId: string, at: Date) {
    try {
      await this.inner.revokeSession(sessionId, at);
    } finally {
      this.forget(sessionId);
    }
  }

  /** Sessions are not indexed by user here, so all are forgotten: revoking a user is rare. */
  async revokeUser(userId: string, at: Date) {
    try {
      await this.inner.revokeUser(userId, at);
    } finally {
      this.forgetAll();
    }
  }

  async isSessionActive(sessionId: string, now: Date) {
    if (!this.coherence.live) {
      this.meter.miss();
      return this.inner.isSessionActive(sessionId, now);
    }
    const time = now.getTime();
    const known = this.sessions.get(sessionId);
    if (known?.active === true && time < known.until) {
      this.meter.hit();
      return true;
    }
    if (known?.active === false && time >= known.since) {
      this.meter.hit();
      return false;
    }
    this.meter.miss();
    const generation = this.generation;
    const until = time + this.horizonMs;
    if (await this.inner.isSessionActive(sessionId, new Date(until))) {
      if (generation === this.generation) this.sessions.set(sessionId, { active: true, until });
      return true;
    }
    // Not active at the horizon: either it ends before then (answer, keep nothing) or it has ended.
    const active = await this.inner.isSessionActive(sessionId, now);
    if (!active && generation === this.generation) {
      this.sessions.set(sessionId, { active: false, since: time });
    }
    return active;
  }

  /** Removing tokens can end sessions early when `before` lies ahead, so everything is forgotten. */
  async deleteExpired(before: Date) {
    try {
      return await this.inner.deleteExpired(before);
    } finally {
      this.forgetAll();
    }
  }

  /** For the user cache: deleting a user removes their tokens, and with them their sessions. */
  forgetAll() {
    this.generation++;
    this.sessions.clear();
  }

  /** For the change feed: the session changed elsewhere. */
  forgetSession(sessionId: string) {
    this.forget(sessionId);
  }

  private forget(sessionId: string) {
    this.generation++;
    this.sessions.delete(sessionId);
  }
}
