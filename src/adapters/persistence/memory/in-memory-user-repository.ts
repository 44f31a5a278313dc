import type { ActivityEntry } from '../../../application/ports/activity-log.ts';
import type { SystemQuery } from '../../../application/ports/system-query.ts';
import type { UserRepository } from '../../../application/ports/user-repository.ts';
import { USERS_COLLECTION } from '../../../application/system-queries/system-collections.ts';
import { recordNotUnique } from '../../../domain/errors.ts';
import { compareCodePoints } from '../../../domain/query/code-point-order.ts';
import { User, type UserChanges } from '../../../domain/user.ts';
import type { InMemoryRefreshTokenRepository } from './in-memory-refresh-token-repository.ts';
import type { InMemoryRoleRepository } from './in-memory-role-repository.ts';
import { answerSystemQuery, type CanonicalRecord } from './in-memory-system-query.ts';

const copy = (user: User) => new User({ ...user });

/** The database's list order: by creation, then id (uuids compare as their lowercase text). */
const byCreation = (a: User, b: User) =>
  a.createdAt.getTime() - b.createdAt.getTime() || compareCodePoints(a.id, b.id);

/** `token` is the digest: filters only ever test it for null (system-collections.ts). */
const canonicalUser = (user: User): CanonicalRecord => ({
  id: user.id,
  email: user.email,
  first_name: user.firstName,
  last_name: user.lastName,
  role: user.roleId,
  status: user.status,
  token: user.tokenDigest,
});

export class InMemoryUserRepository implements UserRepository {
  private readonly users = new Map<string, User>();

  constructor(
    private readonly roles: InMemoryRoleRepository,
    private readonly refreshTokens: InMemoryRefreshTokenRepository,
    private readonly record: (entry: ActivityEntry) => void = () => {},
  ) {
    roles.onDelete((roleId) => {
      for (const user of this.users.values()) if (user.roleId === roleId) user.roleId = null;
    });
  }

  async findById(id: string) {
    const user = this.users.get(id);
    return user ? copy(user) : null;
  }

  /** The user as stored, without waiting: for the refresh tokens' writes that depend on it. */
  stored(id: string): User | undefined {
    return this.users.get(id);
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

  async query(query: SystemQuery) {
    const sorted = [...this.users.values()].sort(byCreation);
    const page = answerSystemQuery(sorted, canonicalUser, USERS_COLLECTION, query);
    return { ...page, records: page.records.map(copy) };
  }

  async save(user: User, activity?: ActivityEntry) {
    for (const other of this.users.values()) {
      if (other.id === user.id) continue;
      if (other.email === user.email) throw recordNotUnique('email');
      if (user.tokenDigest !== null && other.tokenDigest === user.tokenDigest) throw recordNotUnique('token');
    }
    this.users.set(user.id, copy(user));
    if (activity) this.record(activity);
  }

  async update(id: string, changes: UserChanges, activity?: ActivityEntry) {
    const stored = this.users.get(id);
    if (!stored) return null;
    const updated = new User({ ...stored, ...changes });
    await this.save(updated, activity);
    return copy(updated);
  }

  async delete(id: string, activity?: ActivityEntry) {
    this.refreshTokens.removeUser(id);
    if (!this.users.delete(id)) return false;
    if (activity) this.record(activity);
    return true;
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
