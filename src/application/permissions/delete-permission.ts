import type { Accountability } from '../../domain/accountability.ts';
import { notFound } from '../../domain/errors.ts';
import { requireAdmin } from '../access.ts';
import { systemActivity } from '../activity/system-activity.ts';
import type { Handler } from '../handler.ts';
import type { PermissionRepository } from '../ports/permission-repository.ts';

export class DeletePermissionHandler implements Handler<{ id: string }, void> {
  constructor(private readonly permissions: PermissionRepository) {}

  async execute(caller: Accountability, { id }: { id: string }): Promise<void> {
    requireAdmin(caller);
    const activity = systemActivity(caller, 'delete', 'datagate_permissions', id);
    if (!(await this.permissions.delete(id, activity))) throw notFound('Permission');
  }
}
