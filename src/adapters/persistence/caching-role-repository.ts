import type { RoleRepository } from '../../application/ports/role-repository.ts';
import { Role } from '../../domain/role.ts';
import { CACHE_DEFAULTS, LruMap, type LruMapOptions } from '../lru-map.ts';
import type { CachingUserRepository } from './caching-user-repository.ts';

/** Callers change the roles they are given before saving them: the cache hands out copies. */
const copy = (role: Role) => new Role({ ...role });

/**
 * Serves `findById` — asked on every request of a caller with a role — from memory, found and not found
 * alike. Every save or delete through this repository drops the role's entry before returning, so a
 * change of admin access applies at once. Deleting a role leaves its holders with no role in the store,
 * so the user cache is told to drop them too; name lookups and lists are not cached.
 *
 * The cache is per process: a change made through another server instance or by SQL is seen when the
 * entry ages out (`maxAgeMs`, a minute by default) or on restart (multi-instance invalidation, e.g.
 * LISTEN/NOTIFY, is future work).
 */
export class CachingRoleRepository implements RoleRepository {
  private readonly byId: LruMap<string, Role | null>;
  /** Bumped by every invalidation, so a read that started before it does not store what it read. */
  private generation = 0;

  constructor(
    private readonly inner: RoleRepository,
    private readonly users: Pick<CachingUserRepository, 'forgetHoldersOf'>,
    options: Partial<LruMapOptions> = {},
  ) {
    this.byId = new LruMap({ ...CACHE_DEFAULTS, ...options });
  }

  async findById(id: string) {
    const cached = this.byId.get(id);
    if (cached !== undefined) return cached && copy(cached);
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

  async save(role: Role) {
    try {
      await this.inner.save(role);
    } finally {
      this.forget(role.id);
    }
  }

  async delete(id: string) {
    try {
      return await this.inner.delete(id);
    } finally {
      this.forget(id);
      this.users.forgetHoldersOf(id);
    }
  }

  private forget(id: string) {
    this.generation++;
    this.byId.delete(id);
  }
}
