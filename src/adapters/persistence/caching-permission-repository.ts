import type { PermissionRepository } from '../../application/ports/permission-repository.ts';
import type { Permission, PermissionAction } from '../../domain/permissions/permission.ts';

type Index = Map<string, Permission[]>;

const keyOf = (role: string | null, collection: string, action: PermissionAction) =>
  JSON.stringify([role, collection, action]);

/**
 * Serves `listFor` — asked on every item read — from memory: all permissions are loaded once and the
 * index is dropped on every change made through this repository. Changes made elsewhere (another
 * server instance, SQL by hand) are not seen until a change here or a restart; permissions deleted with
 * their role stay indexed under a role id no user can hold any more, which grants nothing.
 */
export class CachingPermissionRepository implements PermissionRepository {
  private index: Promise<Index> | null = null;

  constructor(private readonly inner: PermissionRepository) {}

  findById(id: string) {
    return this.inner.findById(id);
  }

  list() {
    return this.inner.list();
  }

  /** The permissions are shared with the cache: readers must not change them. */
  async listFor(role: string | null, collection: string, action: PermissionAction) {
    return [...((await this.loaded()).get(keyOf(role, collection, action)) ?? [])];
  }

  async save(permission: Permission) {
    try {
      await this.inner.save(permission);
    } finally {
      this.invalidate();
    }
  }

  async delete(id: string) {
    try {
      return await this.inner.delete(id);
    } finally {
      this.invalidate();
    }
  }

  private invalidate() {
    this.index = null;
  }

  private loaded(): Promise<Index> {
    if (this.index) return this.index;
    const loading = this.inner.list().then((all) => {
      const index: Index = new Map();
      for (const permission of all) {
        const key = keyOf(permission.role, permission.collection, permission.action);
        index.set(key, [...(index.get(key) ?? []), permission]);
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
