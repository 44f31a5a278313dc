import { type RawBuilder, sql } from 'kysely';
import type { FieldSchema } from '../../../domain/schema/collection-schema.ts';

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
 * - timestamptz: in UTC, `"2024-01-02T01:04:05.123+00:00"`, whatever the session's TimeZone;
 * - int8: a number within ±(2^53 − 1), else its digits as a string;
 * - numeric: a number when the double nearest to it prints (shortest round-trip) as the same decimal value
 *   — 0.1 → 0.1, 1.10 → 1.1 — else the exact decimal text (`"123456789012345678901234567890"`, `"NaN"`).
 *   Values outside the normal double range never convert (numeric → float8 would raise);
 * - types the API does not know (arrays, enums, geometry, interval…) → their text.
 */
export function jsonValueSql(field: FieldSchema): RawBuilder<unknown> {
  const column = sql.id(field.name);
  switch (field.type) {
    case 'dateTime':
      return sql`case when isfinite(${column})
        then (rtrim(to_json(${column} at time zone 'UTC')::text, '"') || '+00:00"')::json
        else to_json(${column}) end`;
    case 'bigInteger':
      return sql`case when ${column} between -${sql.raw(MAX_SAFE_INTEGER)} and ${sql.raw(MAX_SAFE_INTEGER)}
        then to_json(${column}) else to_json(${column}::text) end`;
    case 'decimal':
      // Nested CASE because only CASE promises not to evaluate the cast when the range check fails.
      return sql`case when ${column} = 0 or abs(${column}) between 1e-307 and 1e308
        then case when ${column}::float8::text::numeric = ${column}
          then to_json(${column}::float8) else to_json(${column}::text) end
        else to_json(${column}::text) end`;
    case 'unknown':
      return sql`${column}::text`;
    default:
      return column;
  }
}
