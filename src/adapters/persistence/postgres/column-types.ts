import type { FieldSchema } from '../../../domain/schema/collection-schema.ts';
import type { CreatableFieldType, FieldType } from '../../../domain/schema/field-type.ts';
import { DEFAULT_STRING_LENGTH } from '../../../domain/schema/new-field.ts';

/**
 * How PostgreSQL types and the API's field types (docs/api.md §7) translate, in both directions. All SQL type
 * names here are constants: they are spliced into statements, so they must never come from a caller.
 */

/** Base type name (`pg_type.typname`) → field type; anything missing reads as `unknown`. */
const FIELD_TYPE_OF_TYPNAME: Readonly<Record<string, FieldType>> = {
  uuid: 'uuid',
  varchar: 'string',
  bpchar: 'string',
  text: 'text',
  int2: 'integer',
  int4: 'integer',
  int8: 'bigInteger',
  float4: 'float',
  float8: 'float',
  numeric: 'decimal',
  bool: 'boolean',
  timestamp: 'timestamp',
  timestamptz: 'dateTime',
  date: 'date',
  time: 'time',
  json: 'json',
  jsonb: 'json',
};

export function fieldTypeOf(typname: string): FieldType {
  return Object.hasOwn(FIELD_TYPE_OF_TYPNAME, typname) ? FIELD_TYPE_OF_TYPNAME[typname]! : 'unknown';
}

/**
 * The field type of an array's element type, or null when the API does not model such arrays: json
 * elements (whose canonical text would nest in the array's) and types it does not know read as text.
 * Enum elements are strings.
 */
export function elementTypeOf(typname: string, isEnum: boolean): FieldType | null {
  if (isEnum) return 'string';
  const type = fieldTypeOf(typname);
  return type === 'json' || type === 'unknown' ? null : type;
}

/**
 * The type a filter value is bound as. Each family binds at its widest member, so a value that does not fit
 * a narrower column compares (and fails to match) instead of failing the cast: an int2 column against
 * 100000 simply matches nothing. `json` compares as jsonb (json has no equality); `unknown` is never
 * compared by value (operator-support.ts), text only keeps the table total. An enum binds as text and is
 * compared as text (filter-sql.ts `comparable`), so no caller value is ever cast to the enum type unchecked.
 */
const PARAMETER_TYPE: Readonly<Record<FieldType, string>> = {
  uuid: 'uuid',
  string: 'text',
  text: 'text',
  integer: 'int8',
  bigInteger: 'int8',
  float: 'float8',
  decimal: 'numeric',
  boolean: 'boolean',
  timestamp: 'timestamp',
  dateTime: 'timestamptz',
  date: 'date',
  time: 'time',
  json: 'jsonb',
  // An array binds its canonical JSON text (see postgres-item-writer.ts); filters bind its elements.
  array: 'jsonb',
  unknown: 'text',
};

/**
 * The one exception to widening: a `real` column holds 1.1 as the float4 nearest to it, which no float8
 * equals, so its values bind as float4 — `_eq: 1.1` then matches what reads back as 1.1.
 */
export function parameterTypeOf(field: Pick<FieldSchema, 'type' | 'dbType'>): string {
  return field.dbType === 'real' ? 'float4' : PARAMETER_TYPE[field.type];
}

/** Column types of created fields (docs/api.md §7). `decimal` has no fixed precision: it keeps what it is given. */
const COLUMN_TYPE: Readonly<Record<Exclude<CreatableFieldType, 'string'>, string>> = {
  uuid: 'uuid',
  text: 'text',
  integer: 'integer',
  bigInteger: 'bigint',
  float: 'double precision',
  decimal: 'numeric',
  boolean: 'boolean',
  timestamp: 'timestamp without time zone',
  dateTime: 'timestamp with time zone',
  date: 'date',
  time: 'time without time zone',
  json: 'jsonb',
};

/** `maxLength` must already be validated as a positive integer: it is printed into the type. */
export function columnTypeOf(type: CreatableFieldType, maxLength: number | undefined): string {
  if (type === 'string') return `character varying(${maxLength ?? DEFAULT_STRING_LENGTH})`;
  return COLUMN_TYPE[type];
}
