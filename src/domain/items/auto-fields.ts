import { DomainError } from '../errors.ts';
import type { ScalarValue } from '../query/filter.ts';
import { truncatedForTemporalColumn } from '../query/temporal-precision.ts';
import { localDate, localTimestamp } from '../query/temporal-text.ts';
import type { CollectionSchema, FieldSchema } from '../schema/collection-schema.ts';
import { FILES_COLLECTION, fieldOf } from '../schema/collection-schema.ts';
import type { FieldType } from '../schema/field-type.ts';
import { columnValue } from './column-value.ts';
import { uuidV7 } from './uuid-v7.ts';

export type WriteKind = 'create' | 'update';

/** Who writes and when: what the auto fields are set to. */
export type AutoFieldContext = { readonly user: string | null; readonly now: Date };

export type AutoField = { readonly on: WriteKind; readonly holds: 'time' | 'user' };

/**
 * The columns the server sets by name (docs/api.md §5). Like Directus, `date_updated` is set on updates only:
 * it stays as the database leaves it on create (usually null), so "never updated" remains visible.
 */
const ITEM_AUTO_FIELDS: ReadonlyMap<string, AutoField> = new Map([
  ['date_created', { on: 'create', holds: 'time' }],
  ['user_created', { on: 'create', holds: 'user' }],
  ['date_updated', { on: 'update', holds: 'time' }],
  ['user_updated', { on: 'update', holds: 'user' }],
]);

/** The same four on files, under the names Directus's `directus_files` gives them (docs/api.md §15). */
const FILE_AUTO_FIELDS: ReadonlyMap<string, AutoField> = new Map([
  ['uploaded_on', { on: 'create', holds: 'time' }],
  ['uploaded_by', { on: 'create', holds: 'user' }],
  ['modified_on', { on: 'update', holds: 'time' }],
  ['modified_by', { on: 'update', holds: 'user' }],
]);

function autoFieldsOf(collection: Pick<CollectionSchema, 'name'>): ReadonlyMap<string, AutoField> {
  return collection.name === FILES_COLLECTION ? FILE_AUTO_FIELDS : ITEM_AUTO_FIELDS;
}

const TIME_TYPES: ReadonlySet<FieldType> = new Set(['timestamp', 'dateTime', 'date']);
const USER_TYPES: ReadonlySet<FieldType> = new Set(['uuid', 'string', 'text']);

/**
 * Whether the server owns this column: its name is an auto field's and its type can hold what the server
 * writes there. A same-named column of another type (an integer `date_created`) is ordinary data.
 */
export function isAutoField(field: FieldSchema, collection: Pick<CollectionSchema, 'name'>): boolean {
  return autoFieldOf(field, collection) !== undefined;
}

/** What the server writes into the field, when and what (isAutoField); undefined for ordinary data. */
export function autoFieldOf(
  field: Pick<FieldSchema, 'name' | 'type'>,
  collection: Pick<CollectionSchema, 'name'>,
): AutoField | undefined {
  const auto = autoFieldsOf(collection).get(field.name);
  return auto !== undefined && (auto.holds === 'time' ? TIME_TYPES : USER_TYPES).has(field.type)
    ? auto
    : undefined;
}

/**
 * The auto fields this write sets, for the columns the collection has; merged over the payload last, so
 * callers cannot override them.
 *
 * Times are written as `$NOW` reads in a filter (bind-dynamic-values.ts), so a permission comparing an
 * auto field with `$NOW` sees the same instant: `timestamp` columns get the server's local wall-clock
 * time in the seed format, whole seconds (`YYYY-MM-DDThh:mm:ss`); `timestamptz` the instant, with
 * milliseconds, in UTC (cut to the column's digits when it keeps fewer: `timestamptz(0)` whole seconds, never
 * rounded up past `$NOW`); `date` the server's local date. User columns get the caller's id, or null for
 * the public caller or an id the column cannot hold (a varchar too short for it).
 */
export function autoFields(
  collection: CollectionSchema,
  action: WriteKind,
  context: AutoFieldContext,
): Record<string, ScalarValue | null> {
  const values: Record<string, ScalarValue | null> = {};
  for (const field of collection.fields) {
    const auto = autoFieldsOf(collection).get(field.name);
    if (auto?.on !== action || !isAutoField(field, collection)) continue;
    // Only the names above reach here, so plain assignment is safe.
    values[field.name] =
      auto.holds === 'time' ? timeValue(field, context.now) : userValue(field, context.user);
  }
  return values;
}

function timeValue(field: FieldSchema, now: Date): ScalarValue | null {
  if (field.type === 'timestamp') return localTimestamp(now);
  if (field.type === 'date') return localDate(now);
  return columnValue(field, truncatedForTemporalColumn(field, now).toISOString());
}

function userValue(field: FieldSchema, user: string | null): ScalarValue | null {
  if (user === null) return null;
  try {
    return columnValue({ ...field, nullable: true }, user);
  } catch (error) {
    if (error instanceof DomainError) return null;
    throw error;
  }
}

/**
 * A generated primary key for a new item: UUID v7 (time-ordered, so new rows stay close in the index)
 * for a uuid key the database does not fill itself; `{}` when the database does, or the key is not a
 * uuid. A key the client sends wins: merge the payload over this.
 */
export function newPrimaryKey(collection: CollectionSchema): Record<string, ScalarValue> {
  const key = generatedKey(collection);
  // A computed key defines an own property even for a column named `__proto__`.
  return key === undefined ? {} : { [key.name]: uuidV7() };
}

/** The primary key newPrimaryKey generates for a new item that names none, if the server generates it. */
export function generatedKey(collection: CollectionSchema): FieldSchema | undefined {
  const key = collection.primaryKey === null ? undefined : fieldOf(collection, collection.primaryKey);
  return key?.type === 'uuid' && !key.hasDefault ? key : undefined;
}
