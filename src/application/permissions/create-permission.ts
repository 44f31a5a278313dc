import type { Accountability } from '../../domain/accountability.ts';
import { uuidV7 } from '../../domain/items/uuid-v7.ts';
import { requireAdmin } from '../access.ts';
import { systemActivity } from '../activity/system-activity.ts';
import type { Handler } from '../handler.ts';
import type { PermissionRepository } from '../ports/permission-repository.ts';
import type { CreatePermissionCommand } from './permission-command.ts';
import type { PermissionValidator } from './permission-validator.ts';
import { type PermissionView, viewPermission } from './permission-view.ts';

export class CreatePermissionHandler implements Handler<CreatePermissionCommand, PermissionView> {
  constructor(
    private readonly permissions: PermissionRepository,
    private readonly validator: PermissionValidator,
  ) {}

  async execute(caller: Accountability, command: CreatePermissionCommand): Promise<PermissionView> {
    requireAdmin(caller);
    const permission = await this.validator.validated({
      // Time-ordered: a role's permissions are applied in the order of their ids, and presets merge in that
      // order with a later one winning (docs/api.md §5), which must be the order they were created in.
      id: uuidV7(),
      role: command.role,
      collection: command.collection,
      action: command.action,
      permissions: command.permissions ?? null,
      validation: command.validation ?? null,
      presets: command.presets ?? null,
      fields: command.fields ?? null,
    });
    await this.permissions.save(
      permission,
      systemActivity(caller, 'create', 'datagate_permissions', permission.id),
    );
    return viewPermission(permission);
  }
}
