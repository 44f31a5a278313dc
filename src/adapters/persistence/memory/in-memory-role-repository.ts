import type { ActivityEntry } from '../../../application/ports/activity-log.ts';
import type { RoleRepository } from '../../../application/ports/role-repository.ts';
import type { SystemQuery } from '../../../application/ports/system-query.ts';
import { ROLES_COLLECTION } from '../../../application/system-queries/system-collections.ts';
import { recordNotUnique } from '../../../domain/errors.ts';
import { compareCodePoints } from '../../../domain/query/code-point-order.ts';
import { Role, type RoleChanges } from '../../../domain/role.ts';
import { answerSystemQuery, type CanonicalRecord } from './in-memory-system-query.ts';

const copy = (role: Role) => new Role({ ...role });

/** The database's list order: by name, then id. */
const byName = (a: Role, b: Role) => compareCodePoints(a.name, b.name) || compareCodePoints(a.id, b.id);

const canonicalRole = (role: Role): CanonicalRecord => ({
  id: role.id,
  name: role.name,
  description: role.description,
  admin_access: role.adminAccess,
});

export class InMemoryRoleRepository implements RoleRepository {
  private readonly roles = new Map<string, Role>();
  private readonly deleteListeners: Array<(roleId: string) => void> = [];

  constructor(private readonly record: (entry: ActivityEntry) => void = () => {}) {}

  async findById(id: string) {
    const role = this.roles.get(id);
    return role ? copy(role) : null;
  }

  async findByName(name: string) {
    for (const role of this.roles.values()) if (role.name === name) return copy(role);
    return null;
  }

  async list() {
    return [...this.roles.values()].map(copy);
  }

  async query(query: SystemQuery) {
    const sorted = [...this.roles.values()].sort(byName);
    const page = answerSystemQuery(sorted, canonicalRole, ROLES_COLLECTION, query);
    return { ...page, records: page.records.map(copy) };
  }

  async save(role: Role, activity?: ActivityEntry) {
    for (const other of this.roles.values()) {
      if (other.id !== role.id && other.name === role.name) throw recordNotUnique('name');
    }
    this.roles.set(role.id, copy(role));
    if (activity) this.record(activity);
  }

  async update(id: string, changes: RoleChanges, activity?: ActivityEntry) {
    const stored = this.roles.get(id);
    if (!stored) return null;
    const updated = new Role({ ...stored, ...changes });
    await this.save(updated, activity);
    return copy(updated);
  }

  async delete(id: string, activity?: ActivityEntry) {
    if (!this.roles.delete(id)) return false;
    for (const listener of this.deleteListeners) listener(id);
    if (activity) this.record(activity);
    return true;
  }

  /** Lets the user store mirror the database's `on delete set null` without a shared table. */
  onDelete(listener: (roleId: string) => void) {
    this.deleteListeners.push(listener);
  }
}
