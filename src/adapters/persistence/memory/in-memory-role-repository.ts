import type { RoleRepository } from '../../../application/ports/role-repository.ts';
import { recordNotUnique } from '../../../domain/errors.ts';
import { Role } from '../../../domain/role.ts';

const copy = (role: Role) => new Role({ ...role });

export class InMemoryRoleRepository implements RoleRepository {
  private readonly roles = new Map<string, Role>();
  private readonly deleteListeners: Array<(roleId: string) => void> = [];

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

  async save(role: Role) {
    for (const other of this.roles.values()) {
      if (other.id !== role.id && other.name === role.name) throw recordNotUnique('name');
    }
    this.roles.set(role.id, copy(role));
  }

  async delete(id: string) {
    if (!this.roles.delete(id)) return false;
    for (const listener of this.deleteListeners) listener(id);
    return true;
  }

  /** Lets the user store mirror the database's `on delete set null` without a shared table. */
  onDelete(listener: (roleId: string) => void) {
    this.deleteListeners.push(listener);
  }
}
