import type { Accountability } from '../../domain/accountability.ts';
import { notFound } from '../../domain/errors.ts';
import type { RoleChanges } from '../../domain/role.ts';
import { requireAdmin } from '../access.ts';
import { systemActivity } from '../activity/system-activity.ts';
import type { Handler } from '../handler.ts';
import type { LastAdminGuard } from '../last-admin-guard.ts';
import type { RoleRepository } from '../ports/role-repository.ts';
import { parseRoleDescription } from './role-description.ts';
import { parseRoleName } from './role-name.ts';
import { type RoleView, viewRole } from './role-view.ts';

export type UpdateRoleCommand = { name?: string; description?: string | null; admin_access?: boolean };

export type UpdateRoleRequest = { id: string; changes: UpdateRoleCommand };

export class UpdateRoleHandler implements Handler<UpdateRoleRequest, RoleView> {
  constructor(
    private readonly roles: RoleRepository,
    private readonly lastAdmin: LastAdminGuard,
  ) {}

  async execute(caller: Accountability, { id, changes: command }: UpdateRoleRequest): Promise<RoleView> {
    requireAdmin(caller);
    const role = await this.roles.findById(id);
    if (!role) throw notFound('Role');
    const changes: RoleChanges = {};
    if (command.name !== undefined) changes.name = parseRoleName(command.name);
    if (command.description !== undefined) changes.description = parseRoleDescription(command.description);
    if (command.admin_access !== undefined) changes.adminAccess = command.admin_access;
    await this.lastAdmin.assertRoleChangeKeepsAnAdmin(role.id, changes.adminAccess ?? role.adminAccess);
    // Only the members given are written; a role deleted since it was read stays deleted.
    const updated = await this.roles.update(
      role.id,
      changes,
      systemActivity(caller, 'update', 'datagate_roles', role.id),
    );
    if (!updated) throw notFound('Role');
    return viewRole(updated);
  }
}
