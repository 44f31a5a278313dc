import type { Accountability } from '../../domain/accountability.ts';
import { notFound } from '../../domain/errors.ts';
import { requireAdmin } from '../access.ts';
import { systemActivity } from '../activity/system-activity.ts';
import type { Handler } from '../handler.ts';
import type { PermissionRepository } from '../ports/permission-repository.ts';
import type { UpdatePermissionCommand } from './permission-command.ts';
import type { PermissionValidator } from './permission-validator.ts';
import { type PermissionView, viewPermission } from './permission-view.ts';

export type UpdatePermissionRequest = { id: string; changes: UpdatePermissionCommand };

export class UpdatePermissionHandler implements Handler<UpdatePermissionRequest, PermissionView> {
  constructor(
    private readonly permissions: PermissionRepository,
    private readonly validator: PermissionValidator,
  ) {}

  /**
   * Given keys replace the stored ones (null clears); the result is checked whole, as a new one would be,
   * against the permission as stored when it is written (a change made meanwhile is kept, not overwritten).
   */
  async execute(
    caller: Accountability,
    { id, changes: command }: UpdatePermissionRequest,
  ): Promise<PermissionView> {
    requireAdmin(caller);
    const activity = systemActivity(caller, 'update', 'datagate_permissions', id);
    const permission = await this.permissions.update(
      id,
      (current) =>
        this.validator.validated({
          id: current.id,
          role: unlessGiven(command.role, current.role),
          collection: unlessGiven(command.collection, current.collection),
          action: unlessGiven(command.action, current.action),
          permissions: unlessGiven(command.permissions, current.permissions),
          validation: unlessGiven(command.validation, current.validation),
          presets: unlessGiven(command.presets, current.presets),
          fields: unlessGiven(command.fields, current.fields),
        }),
      activity,
    );
    if (!permission) throw notFound('Permission');
    return viewPermission(permission);
  }
}

/** The given value, null included; the stored one when the key was left out. */
function unlessGiven<T>(given: T | undefined, stored: T): T {
  return given === undefined ? stored : given;
}
