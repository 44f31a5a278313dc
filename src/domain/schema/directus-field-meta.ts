import { invalidPayload } from '../errors.ts';
import { type AutoField, autoFieldOf } from '../items/auto-fields.ts';
import type { FieldSchema } from './collection-schema.ts';
import type { FieldType } from './field-type.ts';
import type { NewField } from './new-field.ts';

/**
 * What a Directus field `meta` asks of the API itself, beside the Data Studio's presentation settings
 * (docs/api.md §7, docs/decisions/0064): `special` (what Directus does to the values: generate, cast,
 * hash…) and `required`. The presentation settings are accepted and not kept; these are honoured or
 * refused, never ignored.
 */
export type FieldMetaClaims = {
  readonly special: ReadonlyArray<string> | null;
  readonly required: boolean;
};

/** The field a `meta` is given for, new or existing. */
export type MetaTarget = {
  readonly name: string;
  readonly type: FieldType;
  readonly primaryKey: boolean;
  readonly nullable: boolean;
};

/** The specials datagate does by itself for some fields, and which fields those are. */
const AUTO_SPECIALS: ReadonlyMap<string, AutoField> = new Map([
  ['date-created', { on: 'create', holds: 'time' }],
  ['user-created', { on: 'create', holds: 'user' }],
  ['date-updated', { on: 'update', holds: 'time' }],
  ['user-updated', { on: 'update', holds: 'user' }],
]);

/**
 * Whether datagate already does what `special` asks for this field: a generated uuid primary key
 * (`uuid`), the auto fields it fills by name (§5: `date-created` on `date_created`…), the casts PostgreSQL
 * makes itself (`cast-boolean`, `cast-json`), and the relation markers whose effect comes from
 * /relations in Directus as here (`m2o`, `file`).
 */
function honoured(special: string, field: MetaTarget, collection: string): boolean {
  switch (special) {
    case 'uuid':
      return field.type === 'uuid' && field.primaryKey;
    case 'cast-boolean':
      return field.type === 'boolean';
    case 'cast-json':
      return field.type === 'json';
    case 'm2o':
    case 'file':
      return true;
    default: {
      const wanted = AUTO_SPECIALS.get(special);
      const auto = autoFieldOf(field, { name: collection });
      return wanted !== undefined && auto?.on === wanted.on && auto.holds === wanted.holds;
    }
  }
}

/**
 * Refuses (400 INVALID_PAYLOAD naming `<member>.special` or `<member>.required`) what a field's `meta` asks
 * that datagate would not do for `field` of `collection`: a special it does not apply there (`hash`,
 * `cast-csv`, `uuid` on another field…), or `required` on a column that may hold null — here a value is
 * required exactly where the column is NOT NULL.
 */
export function checkFieldMeta(
  meta: FieldMetaClaims,
  field: MetaTarget,
  collection: string,
  member: string,
): void {
  for (const special of meta.special ?? []) {
    if (!honoured(special, field, collection)) {
      throw invalidPayload(
        `"${member}.special": datagate does not do ${JSON.stringify(special)} for the field "${field.name}", so it is refused rather than ignored.`,
        `${member}.special`,
      );
    }
  }
  if (meta.required && field.nullable) {
    throw invalidPayload(
      `"${member}.required": a value is required where the column is NOT NULL; the field "${field.name}" may hold null (create it with "schema": { "is_nullable": false }).`,
      `${member}.required`,
    );
  }
}

/** A field about to be created, as `checkFieldMeta` sees it: a primary key is never nullable. */
export function newMetaTarget(field: NewField): MetaTarget {
  const primaryKey = field.isPrimaryKey === true;
  return {
    name: field.field,
    type: field.type,
    primaryKey,
    nullable: !primaryKey && field.isNullable !== false,
  };
}

/** An existing field, as `checkFieldMeta` sees it. */
export function existingMetaTarget(field: FieldSchema): MetaTarget {
  return { name: field.name, type: field.type, primaryKey: field.isPrimaryKey, nullable: field.nullable };
}
