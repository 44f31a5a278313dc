import type { UserRepository } from '../../../application/ports/user-repository.ts';
import { recordNotUnique } from '../../../domain/errors.ts';
import { User } from '../../../domain/user.ts';
import type { InMemoryRefreshTokenRepository } from './in-memory-refresh-token-repository.ts';
import type { InMemoryRoleRepository } from './in-memory-role-repository.ts';

const copy = (user: User) => new User({ ...user });

export class InMemoryUserRepository implements UserRepository {
  private readonly users = new Map<string, User>();

  constructor(
    private readonly roles: InMemoryRoleRepository,
    private readonly refreshTokens: InMemoryRefreshTokenRepository,
  ) {
    roles.onDelete((roleId) => {
      for (const user of this.users.values()) if (user.roleId === roleId) user.roleId = null;
    });
  }

  async findById(id: string) {
    const user = this.users.get(id);
    return user ? copy(user) : null;
  }

  async findByEmail(email: string) {
    return this.find((user) => user.email === email);
  }

  async findByTokenDigest(digest: string) {
    return this.find((user) => user.tokenDigest === digest);
  }

  async list() {
    return [...this.users.values()].map(copy);
  }

  async save(user: User) {
    for (const other of this.users.values()) {
      if (other.id === user.id) continue;
      if (other.email === user.email) throw recordNotUnique('email');
      if (user.tokenDigest !== null && other.tokenDigest === user.tokenDigest) throw recordNotUnique('token');
    }
    this.users.set(user.id, copy(user));
  }

  async delete(id: string) {
    this.refreshTokens.removeUser(id);
    return this.users.delete(id);
  }

  async anyAdminExists() {
    for (const user of this.users.values()) {
      if (user.roleId !== null && (await this.roles.findById(user.roleId))?.adminAccess) return true;
    }
    return false;
  }

  async activeAdmins() {
    const admins: Array<{ id: string; roleId: string }> = [];
    for (const user of this.users.values()) {
      if (user.roleId === null || !user.isActive) continue;
      if ((await this.roles.findById(user.roleId))?.adminAccess)
        admins.push({ id: user.id, roleId: user.roleId });
    }
    return admins;
  }

  private find(match: (user: User) => boolean) {
    for (const user of this.users.values()) if (match(user)) return copy(user);
    return null;
  }
}
