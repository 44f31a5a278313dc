import type { ActivityEntry } from '../../application/ports/activity-log.ts';
import { type CacheMeter, NO_METRICS } from '../../application/ports/metrics.ts';
import type { SystemQuery } from '../../application/ports/system-query.ts';
import type { UserRepository } from '../../application/ports/user-repository.ts';
import { User, type UserChanges } from '../../domain/user.ts';
import { CACHE_DEFAULTS, LruMap, type LruMapOptions } from '../lru-map.ts';
import { ALONE, type Coherence } from './caching-coherence.ts';
import type { CachingRefreshTokenRepository } from './caching-refresh-token-repository.ts';

/** Lookups by id (`users`) and by static-token digest (`user_tokens`). */
export type UserCacheMeters = { readonly byId: CacheMeter; readonly byDigest: CacheMeter };

/** Callers change the users they are given before saving them: the cache hands out copies. */
const copy = (user: User) => new User({ ...user });

/**
 * Serves `findById` and `findByTokenDigest` — asked on every authenticated request — from memory, found
 * and not found alike. Every save or delete through this repository drops the user's entries (by id,
 * by old and new token digest) before returning, so a suspension or a new token applies at once;
 * e-mail lookups (login) and lists are not cached. Unknown digests are kept apart from known ones, so
 * random tokens sprayed by an attacker evict only each other, never a real user's entry.
 *
 * A change made through another server instance or by SQL arrives through the change feed
 * (`forgetUser`, `forgetHoldersOf`); while the feed is not live, lookups read through. Entries still age
 * out after `maxAgeMs` (a minute by default), a safety net only (docs/decisions/0015).
 */
export class CachingUserRepository implements UserRepository {
  private readonly byId: LruMap<string, User | null>;
  private readonly byDigest: LruMap<string, User>;
  private readonly unknownDigests: LruMap<string, true>;
  /** Bumped by every invalidation, so a read that started before it does not store what it read. */
  private generation = 0;
  private readonly coherence: Coherence;
  private readonly meters: UserCacheMeters;

  constructor(
    private readonly inner: UserRepository,
    private readonly sessions: Pick<CachingRefreshTokenRepository, 'forgetAll'>,
    {
      coherence = ALONE,
      meters = { byId: NO_METRICS.cache('users'), byDigest: NO_METRICS.cache('user_tokens') },
      ...options
    }: Partial<LruMapOptions> & { coherence?: Coherence; meters?: UserCacheMeters } = {},
  ) {
    this.coherence = coherence;
    this.meters = meters;
    const settings = { ...CACHE_DEFAULTS, ...options };
    this.byId = new LruMap(settings);
    this.byDigest = new LruMap(settings);
    this.unknownDigests = new LruMap(settings);
  }

  async findById(id: string) {
    const cached = this.coherence.live ? this.byId.get(id) : undefined;
    if (cached !== undefined) {
      this.meters.byId.hit();
      return cached && copy(cached);
    }
    this.meters.byId.miss();
    if (!this.coherence.live) return this.inner.findById(id);
    const generation = this.generation;
    const user = await this.inner.findById(id);
    if (generation === this.generation) this.byId.set(id, user);
    return user && copy(user);
  }

  findByEmail(email: string) {
    return this.inner.findByEmail(email);
  }

  async findByTokenDigest(digest: string) {
    if (!this.coherence.live) {
      this.meters.byDigest.miss();
      return this.inner.findByTokenDigest(digest);
    }
    const known = this.byDigest.get(digest);
    if (known !== undefined || this.unknownDigests.get(digest)) {
      this.meters.byDigest.hit();
      return known === undefined ? null : copy(known);
    }
    this.meters.byDigest.miss();
    const generation = this.generation;
    const user = await this.inner.findByTokenDigest(digest);
    if (generation === this.generation) {
      if (user) this.byDigest.set(digest, user);
      else this.unknownDigests.set(digest, true);
    }
    return user && copy(user);
  }

  list() {
    return this.inner.list();
  }

  /** List queries read through: they are rare, admin-only, and any cached copy could be stale. */
  query(query: SystemQuery) {
    return this.inner.query(query);
  }

  async save(user: User, activity?: ActivityEntry) {
    try {
      await this.inner.save(user, activity);
    } finally {
      this.forget(user.id);
      // The new digest may have been looked up, and found unknown, before it was given out.
      if (user.tokenDigest !== null) this.unknownDigests.delete(user.tokenDigest);
    }
  }

  async update(id: string, changes: UserChanges, activity?: ActivityEntry) {
    try {
      return await this.inner.update(id, changes, activity);
    } finally {
      this.forget(id);
      // The new digest may have been looked up, and found unknown, before it was given out.
      if (changes.tokenDigest) this.unknownDigests.delete(changes.tokenDigest);
    }
  }

  async delete(id: string, activity?: ActivityEntry) {
    try {
      return await this.inner.delete(id, activity);
    } finally {
      this.forget(id);
      this.sessions.forgetAll();
    }
  }

  anyAdminExists() {
    return this.inner.anyAdminExists();
  }

  activeAdmins() {
    return this.inner.activeAdmins();
  }

  /** For the role cache: deleting a role leaves its holders with no role. */
  forgetHoldersOf(roleId: string) {
    this.generation++;
    this.byId.deleteWhere((user) => user?.roleId === roleId);
    this.byDigest.deleteWhere((user) => user.roleId === roleId);
  }

  /**
   * For the change feed: the user changed elsewhere. Their new static token may have been looked up
   * here, and found unknown, before it was given out; the feed names no digest (it carries no secret),
   * so every unknown digest is forgotten.
   */
  forgetUser(id: string) {
    this.forget(id);
    this.unknownDigests.clear();
  }

  /** For the change feed: changes may have been missed. */
  forgetAll() {
    this.generation++;
    this.byId.clear();
    this.byDigest.clear();
    this.unknownDigests.clear();
  }

  private forget(id: string) {
    this.generation++;
    this.byId.delete(id);
    // By value, not by key: the user's old digest is only known from what was cached under it.
    this.byDigest.deleteWhere((user) => user.id === id);
  }
}
