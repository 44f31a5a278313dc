export const PERMISSION_ACTIONS = ['create', 'read', 'update', 'delete'] as const;
export type PermissionAction = (typeof PERMISSION_ACTIONS)[number];

/** A filter exactly as an admin wrote it (JSON), parsed against the collection's schema when used. */
export type RawFilter = Record<string, unknown>;

export type PermissionProps = {
  id: string;
  /** null = the public role: applies to anonymous callers only. */
  role: string | null;
  collection: string;
  action: PermissionAction;
  /** Row filter: which items the rule covers; null = all rows. */
  permissions: RawFilter | null;
  /** For create/update: a filter the merged item must satisfy; null = none. */
  validation: RawFilter | null;
  /** For create/update: default values applied before the payload. */
  presets: Record<string, unknown> | null;
  /** Field names, or `['*']` for all; null = none. */
  fields: string[] | null;
};

/** One grant: a role may perform `action` on the rows of `collection` matching `permissions`, on `fields`. */
export class Permission {
  id: string;
  role: string | null;
  collection: string;
  action: PermissionAction;
  permissions: RawFilter | null;
  validation: RawFilter | null;
  presets: Record<string, unknown> | null;
  fields: string[] | null;

  constructor(props: PermissionProps) {
    this.id = props.id;
    this.role = props.role;
    this.collection = props.collection;
    this.action = props.action;
    this.permissions = props.permissions;
    this.validation = props.validation;
    this.presets = props.presets;
    this.fields = props.fields;
  }
}
