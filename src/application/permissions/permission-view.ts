import type { Permission, PermissionAction, RawFilter } from '../../domain/permissions/permission.ts';

/** docs/api.md §6, as the admin endpoints show it. */
export type PermissionView = {
  id: string;
  role: string | null;
  collection: string;
  action: PermissionAction;
  permissions: RawFilter | null;
  validation: RawFilter | null;
  presets: Record<string, unknown> | null;
  fields: string[] | null;
};

export function viewPermission(permission: Permission): PermissionView {
  return {
    id: permission.id,
    role: permission.role,
    collection: permission.collection,
    action: permission.action,
    permissions: permission.permissions,
    validation: permission.validation,
    presets: permission.presets,
    fields: permission.fields,
  };
}
