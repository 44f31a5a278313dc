import type { PermissionRepository } from '../../../application/ports/permission-repository.ts';
import { Permission, type PermissionAction } from '../../../domain/permissions/permission.ts';
import type { InMemoryRoleRepository } from './in-memory-role-repository.ts';

/** Deep copies both ways, as a database would: a caller changing a filter object changes nothing stored. */
const copy = (permission: Permission) => new Permission(structuredClone({ ...permission }));

/** The order the database lists them in (uuids compare as their lowercase text). */
const byCollectionActionId = (a: Permission, b: Permission) =>
  compare(a.collection, b.collection) || compare(a.action, b.action) || compare(a.id, b.id);

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export class InMemoryPermissionRepository implements PermissionRepository {
  private readonly permissions = new Map<string, Permission>();

  constructor(roles: InMemoryRoleRepository) {
    // Mirrors the database's `on delete cascade`: a role's permissions go with it.
    roles.onDelete((roleId) => {
      for (const [id, permission] of this.permissions)
        if (permission.role === roleId) this.permissions.delete(id);
    });
  }

  async findById(id: string) {
    const permission = this.permissions.get(id);
    return permission ? copy(permission) : null;
  }

  async list() {
    return [...this.permissions.values()].sort(byCollectionActionId).map(copy);
  }

  async listFor(role: string | null, collection: string, action: PermissionAction) {
    return [...this.permissions.values()]
      .filter((p) => p.role === role && p.collection === collection && p.action === action)
      .sort(byCollectionActionId)
      .map(copy);
  }

  async save(permission: Permission) {
    this.permissions.set(permission.id, copy(permission));
  }

  async delete(id: string) {
    return this.permissions.delete(id);
  }
}
