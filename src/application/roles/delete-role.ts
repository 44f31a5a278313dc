import type { Accountability } from '../../domain/accountability.ts';
import { notFound } from '../../domain/errors.ts';
import { requireAdmin } from '../access.ts';
import { systemActivity } from '../activity/system-activity.ts';
import type { Handler } from '../handler.ts';
import type { LastAdminGuard } from '../last-admin-guard.ts';
import type { RoleRepository } from '../ports/role-repository.ts';

export class DeleteRoleHandler implements Handler<{ id: string }, void> {
  constructor(
    private readonly roles: RoleRepository,
    private readonly lastAdmin: LastAdminGuard,
  ) {}

  async execute(caller: Accountability, { id }: { id: string }): Promise<void> {
    requireAdmin(caller);
    await this.lastAdmin.assertRoleChangeKeepsAnAdmin(id, false);
    if (!(await this.roles.delete(id, systemActivity(caller, 'delete', 'datagate_roles', id)))) {
      throw notFound('Role');
    }
  }
}
