import type { Accountability } from '../../domain/accountability.ts';
import { notFound } from '../../domain/errors.ts';
import { requireAdmin } from '../access.ts';
import { systemActivity } from '../activity/system-activity.ts';
import type { Handler } from '../handler.ts';
import type { LastAdminGuard } from '../last-admin-guard.ts';
import type { UserRepository } from '../ports/user-repository.ts';

export class DeleteUserHandler implements Handler<{ id: string }, void> {
  constructor(
    private readonly users: UserRepository,
    private readonly lastAdmin: LastAdminGuard,
  ) {}

  async execute(caller: Accountability, { id }: { id: string }): Promise<void> {
    requireAdmin(caller);
    await this.lastAdmin.assertUserChangeKeepsAnAdmin(id, null);
    if (!(await this.users.delete(id, systemActivity(caller, 'delete', 'datagate_users', id)))) {
      throw notFound('User');
    }
  }
}
