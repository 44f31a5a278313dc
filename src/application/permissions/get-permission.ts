import type { Accountability } from '../../domain/accountability.ts';
import { notFound } from '../../domain/errors.ts';
import { requireAdmin } from '../access.ts';
import type { Handler } from '../handler.ts';
import type { PermissionRepository } from '../ports/permission-repository.ts';
import { type PermissionView, viewPermission } from './permission-view.ts';

export class GetPermissionHandler implements Handler<{ id: string }, PermissionView> {
  constructor(private readonly permissions: PermissionRepository) {}

  async execute(caller: Accountability, { id }: { id: string }): Promise<PermissionView> {
    requireAdmin(caller);
    const permission = await this.permissions.findById(id);
    if (!permission) throw notFound('Permission');
    return viewPermission(permission);
  }
}
