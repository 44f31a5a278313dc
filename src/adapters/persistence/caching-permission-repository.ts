import type { ActivityEntry } from '../../application/ports/activity-log.ts';
import { type CacheMeter, NO_METRICS } from '../../application/ports/metrics.ts';
import type { PermissionRepository } from '../../application/ports/permission-repository.ts';
import type { SystemQuery } from '../../application/ports/system-query.ts';
import { entryOf } from '../../domain/map-entry.ts';
import type { Permission, PermissionAction } from '../../domain/permissions/permission.ts';
import { ALONE, type Coherence } from './caching-coherence.ts';

/** By role, action and collection: looked up on every read, so no key is built to look one up. */
type Index = Map<string | null, Map<PermissionAction, Map<string, Permission[]>>>;

/** A safety net only: changes made elsewhere arrive through the change feed (docs/decisions/0015). */
const MAX_AGE_MS = 60_000;

/**
 * Serves `listFor` — asked on every item read — from memory: all permissions are loaded at once and the
 * index is dropped on every change made through this repository or announced by the change feed (another
 * server instance, SQL by hand), and reloaded after a minute as a safety net. While the feed is not live,
 * `listFor` reads through.
 */
export class CachingPermissionRepository implements PermissionRepository {
  private index: Promise<Index> | null = null;
  private loadedAt = 0;

  constructor(
    private readonly inner: PermissionRepository,
    private readonly coherence: Coherence = ALONE,
    private readonly meter: CacheMeter = NO_METRICS.cache('permissions'),
  ) {}

  findById(id: string) {
    return this.inner.findById(id);
  }

  list() {
    return this.inner.list();
  }

  /** List queries read through: they are rare, admin-only, and any cached copy could be stale. */
  query(query: SystemQuery) {
    return this.inner.query(query);
  }

  /** The permissions are shared with the cache: readers must not change them. */
  async listFor(role: string | null, collection: string, action: PermissionAction) {
    if (!this.coherence.live) {
      this.meter.miss();
      return this.inner.listFor(role, collection, action);
    }
    return [...((await this.loaded()).get(role)?.get(action)?.get(collection) ?? [])];
  }

  async save(permission: Permission, activity?: ActivityEntry) {
    try {
      await this.inner.save(permission, activity);
    } finally {
      this.invalidate();
    }
  }

  async update(id: string, change: (stored: Permission) => Promise<Permission>, activity?: ActivityEntry) {
    try {
      return await this.inner.update(id, change, activity);
    } finally {
      this.invalidate();
    }
  }

  async delete(id: string, activity?: ActivityEntry) {
    try {
      return await this.inner.delete(id, activity);
    } finally {
      this.invalidate();
    }
  }

  /** For the change feed: a permission changed elsewhere, or changes may have been missed. */
  invalidate() {
    this.index = null;
  }

  private loaded(): Promise<Index> {
    if (this.index && performance.now() - this.loadedAt < MAX_AGE_MS) {
      this.meter.hit();
      return this.index;
    }
    this.meter.miss();
    this.loadedAt = performance.now();
    const loading = this.inner.list().then((all) => {
      const index: Index = new Map();
      for (const permission of all) {
        const ofRole = entryOf(index, permission.role, () => new Map());
        const ofAction = entryOf(ofRole, permission.action, () => new Map());
        entryOf(ofAction, permission.collection, (): Permission[] => []).push(permission);
      }
      return index;
    });
    this.index = loading;
    // A failed load is not kept: the next read tries again.
    loading.catch(() => {
      if (this.index === loading) this.index = null;
    });
    return loading;
  }
}
