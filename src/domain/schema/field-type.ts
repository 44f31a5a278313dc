/**
 * The API's field types (docs/api.md §7) — what a column means to a client, independent of the SQL spelling.
 * Introspection maps PostgreSQL types onto these: enums are `string` with their labels as choices, arrays
 * of a known element type are `array` (collection-schema.ts `element`); `unknown` columns (geometry,
 * intervals, arrays of unknown or json elements…) are readable as text but cannot be filtered by value or
 * written.
 */
export const CREATABLE_FIELD_TYPES = [
  'uuid',
  'string',
  'text',
  'integer',
  'bigInteger',
  'float',
  'decimal',
  'boolean',
  'timestamp',
  'dateTime',
  'date',
  'time',
  'json',
] as const;

/** Types a client may ask for when creating a field. */
export type CreatableFieldType = (typeof CREATABLE_FIELD_TYPES)[number];

export const FIELD_TYPES = [...CREATABLE_FIELD_TYPES, 'array', 'unknown'] as const;

export type FieldType = (typeof FIELD_TYPES)[number];

export const TEXTUAL_TYPES: ReadonlySet<FieldType> = new Set(['string', 'text']);
