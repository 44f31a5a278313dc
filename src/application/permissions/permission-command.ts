import type { RawFilter } from '../../domain/permissions/permission.ts';

/**
 * A permission as an admin sends it. `role` must be given, null included: a forgotten role must not
 * silently make a permission public. A missing `fields` grants no field (confidential by default).
 */
export type CreatePermissionCommand = {
  role: string | null;
  collection: string;
  /** Checked by the handler: one of create, read, update, delete. */
  action: string;
  permissions?: RawFilter | null;
  validation?: RawFilter | null;
  presets?: Record<string, unknown> | null;
  fields?: string[] | null;
};

export type UpdatePermissionCommand = Partial<CreatePermissionCommand>;
