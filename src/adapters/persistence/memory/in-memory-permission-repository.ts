import type { ActivityEntry } from '../../../application/ports/activity-log.ts';
import type { PermissionRepository } from '../../../application/ports/permission-repository.ts';
import type { SystemQuery } from '../../../application/ports/system-query.ts';
import { PERMISSIONS_COLLECTION } from '../../../application/system-queries/system-collections.ts';
import { Permission, type PermissionAction } from '../../../domain/permissions/permission.ts';
import { canonicalJson } from '../../../domain/query/canonical-json.ts';
import type { InMemoryRoleRepository } from './in-memory-role-repository.ts';
import { answerSystemQuery, type CanonicalRecord } from './in-memory-system-query.ts';

/** Deep copies both ways, as a database would: a caller changing a filter object changes nothing stored. */
const copy = (permission: Permission) => new Permission(structuredClone({ ...permission }));

/** The order the database lists them in (uuids compare as their lowercase text). */
const byCollectionActionId = (a: Permission, b: Permission) =>
  compare(a.collection, b.collection) || compare(a.action, b.action) || compare(a.id, b.id);

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The json fields as their jsonb text, which is how filters compare them (coerce-value.ts). */
const canonicalPermission = (permission: Permission): CanonicalRecord => ({
  id: permission.id,
  role: permission.role,
  collection: permission.collection,
  action: permission.action,
  permissions: jsonText(permission.permissions),
  validation: jsonText(permission.validation),
  presets: jsonText(permission.presets),
  fields: jsonText(permission.fields),
});

const jsonText = (value: unknown) => (value === null ? null : canonicalJson(value));

export class InMemoryPermissionRepository implements PermissionRepository {
  private readonly permissions = new Map<string, Permission>();
  /** The change running (updates wait for it); settled when none is. */
  private updating: Promise<unknown> = Promise.resolve();

  constructor(
    roles: InMemoryRoleRepository,
    private readonly record: (entry: ActivityEntry) => void = () => {},
  ) {
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

  async query(query: SystemQuery) {
    const sorted = [...this.permissions.values()].sort(byCollectionActionId);
    const page = answerSystemQuery(sorted, canonicalPermission, PERMISSIONS_COLLECTION, query);
    return { ...page, records: page.records.map(copy) };
  }

  async listFor(role: string | null, collection: string, action: PermissionAction) {
    return [...this.permissions.values()]
      .filter((p) => p.role === role && p.collection === collection && p.action === action)
      .sort(byCollectionActionId)
      .map(copy);
  }

  async save(permission: Permission, activity?: ActivityEntry) {
    this.permissions.set(permission.id, copy(permission));
    if (activity) this.record(activity);
  }

  async update(id: string, change: (stored: Permission) => Promise<Permission>, activity?: ActivityEntry) {
    // One change at a time, as the database's row lock has it: `change` may wait (a role looked up).
    const turn = this.updating.then(async () => {
      const stored = this.permissions.get(id);
      if (!stored) return null;
      const changed = await change(copy(stored));
      // Deleted while `change` ran: the delete stands.
      if (!this.permissions.has(id)) return null;
      await this.save(changed, activity);
      return copy(changed);
    });
    this.updating = turn.catch(() => undefined);
    return turn;
  }

  async delete(id: string, activity?: ActivityEntry) {
    if (!this.permissions.delete(id)) return false;
    if (activity) this.record(activity);
    return true;
  }
}
