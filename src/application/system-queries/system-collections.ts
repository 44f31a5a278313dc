import { PERMISSION_ACTIONS } from '../../domain/permissions/permission.ts';
import type { CollectionSchema, FieldSchema } from '../../domain/schema/collection-schema.ts';
import type { FieldType } from '../../domain/schema/field-type.ts';
import { USER_STATUSES } from '../../domain/user.ts';

type FieldOptions = { nullable?: boolean; choices?: ReadonlyArray<string>; maxLength?: number };

/** A field of a collection the server answers itself (system collections, /relations): no default, `id` the key. */
export function systemField(
  name: string,
  type: FieldType,
  dbType: string,
  options: FieldOptions = {},
): FieldSchema {
  return {
    name,
    type,
    dbType,
    nullable: options.nullable ?? false,
    defaultValue: null,
    isPrimaryKey: name === 'id',
    isUnique: name === 'id',
    hasDefault: false,
    maxLength: options.maxLength ?? null,
    ...(options.choices ? { choices: options.choices } : {}),
  };
}

/**
 * `/users`, `/roles` and `/permissions` as the item query language sees them (docs/api.md §6, "Querying
 * the system collections"): their public fields under their API names, nothing else. The password hash
 * is not a field at all, so no parameter can name it.
 *
 * `token` is the one secret that is a field: its value is the mask or null (user-view.ts), and it is typed
 * `unknown` so that the query language itself refuses to sort or search on it and allows only the null
 * tests in a filter (operator-support.ts); `assertSecretsOnlyNullTested` narrows those to `_null`/`_nnull`.
 */
export const USERS_COLLECTION: CollectionSchema = {
  name: 'users',
  primaryKey: 'id',
  fields: [
    systemField('id', 'uuid', 'uuid'),
    systemField('email', 'string', 'character varying(254)', { maxLength: 254 }),
    systemField('first_name', 'string', 'character varying(255)', { nullable: true, maxLength: 255 }),
    systemField('last_name', 'string', 'character varying(255)', { nullable: true, maxLength: 255 }),
    systemField('role', 'uuid', 'uuid', { nullable: true }),
    systemField('status', 'string', 'character varying(16)', { choices: USER_STATUSES, maxLength: 16 }),
    systemField('token', 'unknown', 'text', { nullable: true }),
  ],
};

export const ROLES_COLLECTION: CollectionSchema = {
  name: 'roles',
  primaryKey: 'id',
  fields: [
    systemField('id', 'uuid', 'uuid'),
    systemField('name', 'string', 'character varying(255)', { maxLength: 255 }),
    systemField('description', 'text', 'text', { nullable: true }),
    systemField('admin_access', 'boolean', 'boolean'),
  ],
};

export const PERMISSIONS_COLLECTION: CollectionSchema = {
  name: 'permissions',
  primaryKey: 'id',
  fields: [
    systemField('id', 'uuid', 'uuid'),
    systemField('role', 'uuid', 'uuid', { nullable: true }),
    systemField('collection', 'string', 'character varying(64)', { maxLength: 64 }),
    systemField('action', 'string', 'character varying(16)', { choices: PERMISSION_ACTIONS, maxLength: 16 }),
    systemField('permissions', 'json', 'jsonb', { nullable: true }),
    systemField('validation', 'json', 'jsonb', { nullable: true }),
    systemField('presets', 'json', 'jsonb', { nullable: true }),
    systemField('fields', 'json', 'jsonb', { nullable: true }),
  ],
};

/** Fields whose values are secrets: never shown, sorted or searched; in a filter, only `_null`/`_nnull`. */
export const SECRET_FIELDS: ReadonlySet<string> = new Set(['token']);
