import type { ActivityEntry } from '../../application/ports/activity-log.ts';
import { type CacheMeter, NO_METRICS } from '../../application/ports/metrics.ts';
import type { RoleRepository } from '../../application/ports/role-repository.ts';
import type { SystemQuery } from '../../application/ports/system-query.ts';
import { Role, type RoleChanges } from '../../domain/role.ts';
import { CACHE_DEFAULTS, LruMap, type LruMapOptions } from '../lru-map.ts';
import { ALONE, type Coherence } from './caching-coherence.ts';
import type { CachingUserRepository } from './caching-user-repository.ts';

/** Callers change the roles they are given before saving them: the cache hands out copies. */
const copy = (role: Role) => new Role({ ...role });

/**
 * Serves `findById` — asked on every request of a caller with a role — from memory, found and not found
 * alike. Every save or delete through this repository drops the role's entry before returning, so a
 * change of admin access applies at once. Deleting a role leaves its holders with no role in the store,
 * so the user cache is told to drop them too; name lookups and lists are not cached.
 *
 * A change made through another server instance or by SQL arrives through the change feed
 * (`forgetRole`); while the feed is not live, lookups read through. Entries still age out after
 * `maxAgeMs` (a minute by default), a safety net only (docs/decisions/0015).
 */
export class CachingRoleRepository implements RoleRepository {
  private readonly byId: LruMap<string, Role | null>;
  /** Bumped by every invalidation, so a read that started before it does not store what it read. */
  private generation = 0;
  private readonly coherence: Coherence;
  private readonly meter: CacheMeter;

  constructor(
    private readonly inner: RoleRepository,
    private readonly users: Pick<CachingUserRepository, 'forgetHoldersOf'>,
    {
      coherence = ALONE,
      meter = NO_METRICS.cache('roles'),
      ...options
    }: Partial<LruMapOptions> & { coherence?: Coherence; meter?: CacheMeter } = {},
  ) {
    this.coherence = coherence;
    this.meter = meter;
    this.byId = new LruMap({ ...CACHE_DEFAULTS, ...options });
  }

  async findById(id: string) {
    const cached = this.coherence.live ? this.byId.get(id) : undefined;
    if (cached !== undefined) {
      this.meter.hit();
      return cached && copy(cached);
    }
    this.meter.miss();
    if (!this.coherence.live) return this.inner.findById(id);
    const generation = this.generation;
    const role = await this.inner.findById(id);
    if (generation === this.generation) this.byId.set(id, role);
    return role && copy(role);
  }

  findByName(name: string) {
    return this.inner.findByName(name);
  }

  list() {
    return this.inner.list();
  }

  /** List queries read through: they are rare, admin-only, and any cached copy could be stale. */
  query(query: SystemQuery) {
    return this.inner.query(query);
  }

  async save(role: Role, activity?: ActivityEntry) {
    try {
      await this.inner.save(role, activity);
    } finally {
      this.forget(role.id);
    }
  }

  async update(id: string, changes: RoleChanges, activity?: ActivityEntry) {
    try {
      return await this.inner.update(id, changes, activity);
    } finally {
      this.forget(id);
    }
  }

  async delete(id: string, activity?: ActivityEntry) {
    try {
      return await this.inner.delete(id, activity);
    } finally {
      this.forget(id);
      this.users.forgetHoldersOf(id);
    }
  }

  /** For the change feed: the role changed elsewhere, or went with its holders' role. */
  forgetRole(id: string) {
    this.forget(id);
    this.users.forgetHoldersOf(id);
  }

  /** For the change feed: changes may have been missed. */
  forgetAll() {
    this.generation++;
    this.byId.clear();
  }

  private forget(id: string) {
    this.generation++;
    this.byId.delete(id);
  }
}
