import { type RawBuilder, sql } from 'kysely';
import { elementField, type FieldSchema } from '../../../domain/schema/collection-schema.ts';

/** ±(2^53 − 1): the integers a JSON client's double holds exactly. */
const MAX_SAFE_INTEGER = '9007199254740991';

/**
 * A column as the SQL expression whose JSON rendering (by `row_to_json`/`json_agg`) is its docs/api.md §4 wire
 * form. Most types already render right; verified on PostgreSQL 15 and PGlite (18):
 * - timestamp → `"2024-01-02T03:04:05"`, a fraction only when stored (`…05.5`); date `"2024-01-02"`;
 *   time `"13:01:02.25"`; ±infinity as `"infinity"`/`"-infinity"`;
 * - int2/int4/float4/float8 → numbers (shortest round-trip digits), NaN/±Infinity as strings;
 * - json/jsonb → embedded as is (jsonb in its normalized form); uuid, text, varchar → strings.
 * The rest is decided here:
 * - timestamptz: in UTC, `"2024-01-02T01:04:05.123+00:00"`, whatever the session's TimeZone (BC years, which
 *   only SQL writes, as `"0001-12-31T23:00:00+00:00 BC"`);
 * - int8: a number within ±(2^53 − 1), else its digits as a string;
 * - numeric: a number when the double nearest to it prints (shortest round-trip) as the same decimal value
 *   — 0.1 → 0.1, 1.10 → 1.1 — else the exact decimal text (`"123456789012345678901234567890"`, `"NaN"`).
 *   Values outside the normal double range never convert (numeric → float8 would raise);
 * - enums → their label (to_json's own);
 * - arrays → JSON arrays of their elements, each formatted as above (`arrayJsonSql`);
 * - types the API does not know (geometry, interval…) → their text.
 */
export function jsonValueSql(field: FieldSchema): RawBuilder<unknown> {
  return jsonValueOf(field, sql.id(field.name));
}

/** `jsonValueSql` of any expression of the field's type (a column, or an array's element). */
export function jsonValueOf(field: FieldSchema, column: RawBuilder<unknown>): RawBuilder<unknown> {
  switch (field.type) {
    case 'dateTime':
      // A year before 1 (written in SQL: no API write makes one) ends in ` BC`, which the offset precedes,
      // as in PostgreSQL's own JSON of a timestamptz.
      return sql`case when not isfinite(${column}) then to_json(${column})
        when ${column} >= timestamptz '0001-01-01T00:00:00Z'
        then (rtrim(to_json(${column} at time zone 'UTC')::text, '"') || '+00:00"')::json
        else replace(to_json(${column} at time zone 'UTC')::text, ' BC"', '+00:00 BC"')::json end`;
    case 'bigInteger':
      return sql`case when ${column} between -${sql.raw(MAX_SAFE_INTEGER)} and ${sql.raw(MAX_SAFE_INTEGER)}
        then to_json(${column}) else to_json(${column}::text) end`;
    case 'decimal':
      // Nested CASE because only CASE promises not to evaluate the cast when the range check fails.
      return sql`case when ${column} = 0 or abs(${column}) between 1e-307 and 1e308
        then case when ${column}::float8::text::numeric = ${column}
          then to_json(${column}::float8) else to_json(${column}::text) end
        else to_json(${column}::text) end`;
    case 'array':
      return arrayJsonSql(column, jsonValueOf(elementField(field), sql`element.value`));
    case 'unknown':
      return sql`${column}::text`;
    default:
      return column;
  }
}

/**
 * An array as the JSON array of `elementJson` (an expression over `element.value`), in element order;
 * `[]` when empty, null when null. Multi-dimensional arrays, which the API never writes, keep their
 * nesting as `to_json` renders it, elements unformatted.
 */
export function arrayJsonSql(
  column: RawBuilder<unknown>,
  elementJson: RawBuilder<unknown>,
): RawBuilder<unknown> {
  return sql`case when ${column} is null then null
    when array_ndims(${column}) > 1 then to_json(${column})
    else coalesce((select json_agg(${elementJson} order by element.position)
      from unnest(${column}) with ordinality as element (value, position)), '[]'::json) end`;
}
