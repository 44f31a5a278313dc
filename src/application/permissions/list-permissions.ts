import type { Accountability } from '../../domain/accountability.ts';
import { requireAdmin } from '../access.ts';
import type { Handler } from '../handler.ts';
import type { PermissionRepository } from '../ports/permission-repository.ts';
import { type PermissionView, viewPermission } from './permission-view.ts';

export class ListPermissionsHandler implements Handler<void, PermissionView[]> {
  constructor(private readonly permissions: PermissionRepository) {}

  async execute(caller: Accountability): Promise<PermissionView[]> {
    requireAdmin(caller);
    return (await this.permissions.list()).map(viewPermission);
  }
}
