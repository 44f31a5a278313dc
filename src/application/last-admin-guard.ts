import { lastAdmin } from '../domain/errors.ts';
import type { RoleRepository } from './ports/role-repository.ts';
import type { UserRepository } from './ports/user-repository.ts';

/** What a user will be after a change; null when the user is being deleted. */
export type UserAfterChange = { roleId: string | null; isActive: boolean } | null;

/**
 * Refuses the changes that would leave no active admin: deleting, suspending or demoting the last one,
 * and taking admin access from (or deleting) the last role that gives it to an active user.
 */
export class LastAdminGuard {
  constructor(
    private readonly users: UserRepository,
    private readonly roles: RoleRepository,
  ) {}

  async assertUserChangeKeepsAnAdmin(userId: string, after: UserAfterChange): Promise<void> {
    if (after?.isActive && after.roleId !== null && (await this.roles.findById(after.roleId))?.adminAccess)
      return;
    const admins = await this.users.activeAdmins();
    if (admins.some((admin) => admin.id === userId) && admins.every((admin) => admin.id === userId)) {
      throw lastAdmin();
    }
  }

  async assertRoleChangeKeepsAnAdmin(roleId: string, stillAdmin: boolean): Promise<void> {
    if (stillAdmin) return;
    const admins = await this.users.activeAdmins();
    if (admins.some((admin) => admin.roleId === roleId) && admins.every((admin) => admin.roleId === roleId)) {
      throw lastAdmin();
    }
  }
}
