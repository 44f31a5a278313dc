import { type RawBuilder, sql } from 'kysely';
import { canonicalJson } from '../../../domain/query/canonical-json.ts';
import { normalizeDecimal } from '../../../domain/query/decimal-text.ts';
import type { ScalarValue } from '../../../domain/query/filter.ts';
import { elementField, type FieldSchema } from '../../../domain/schema/collection-schema.ts';
import { arrayJsonSql, jsonValueOf } from './json-value-sql.ts';

/**
 * Stored values read back in their canonical forms (filter.ts, ScalarValue), as the write path needs them
 * to check permission filters on locked rows — not the docs/api.md §4 wire forms of json-value-sql.ts.
 *
 * A column is selected as `canonicalValueSql(field)`, rendered to JSON by PostgreSQL (`row_to_json`,
 * `to_json`), parsed, and finished by `canonicalValueOf`. PostgreSQL's JSON already gives the canonical
 * text of uuid, string, text, integer, boolean, timestamp (`2024-01-02T03:04:05.25`), date and time; the
 * others need help:
 * - bigInteger, decimal: as text, never through a double; decimals then lose trailing zeros (`1.10` →
 *   `1.1`, as coercion writes them); `NaN`/`Infinity` of numeric stay as PostgreSQL prints them;
 * - float: `real` widened to float8 first, so 1.1 reads as the double coercion makes of it
 *   (Math.fround(1.1)); NaN and ±Infinity read as PostgreSQL's text (`"NaN"`, `"-Infinity"`), which is
 *   their canonical form too;
 * - dateTime: in UTC with `+00:00`, the same expression the wire form uses;
 * - json: its jsonb text (a JSON string, so that a stored JSON `null` is not confused with SQL NULL),
 *   re-serialized compactly with jsonb's key order, as canonicalJson writes it;
 * - array: the JSON array of its elements' canonical renderings, as text, each then finished like a column.
 * Columns of type `unknown` have no canonical form: callers leave them out.
 */
export function canonicalValueSql(field: FieldSchema): RawBuilder<unknown> {
  return canonicalExpression(field, sql.id(field.name));
}

function canonicalExpression(field: FieldSchema, column: RawBuilder<unknown>): RawBuilder<unknown> {
  switch (field.type) {
    case 'bigInteger':
    case 'decimal':
      return sql`${column}::text`;
    case 'float':
      return sql`${column}::float8`;
    case 'json':
      return sql`${column}::jsonb::text`;
    case 'dateTime':
      return jsonValueOf(field, column);
    case 'array':
      return sql`(${arrayJsonSql(column, canonicalExpression(elementField(field), sql`element.value`))})::text`;
    default:
      return column;
  }
}

/** The canonical value of one column, from the JSON-parsed rendering of its `canonicalValueSql`. */
export function canonicalValueOf(field: FieldSchema, rendered: unknown): ScalarValue | null {
  if (rendered === null || rendered === undefined) return null;
  switch (field.type) {
    case 'decimal':
      return normalizeDecimal(String(rendered)) ?? String(rendered);
    case 'float':
      return rendered === 0 ? 0 : (rendered as number); // -0 → 0, as coercion writes it
    case 'json':
      // jsonb holds no NUL and no non-finite number, so only nesting beyond canonicalJson's depth limit
      // leaves the jsonb text as it is.
      return canonicalJson(JSON.parse(String(rendered))) ?? String(rendered);
    case 'array': {
      const element = elementField(field);
      const elements = JSON.parse(String(rendered)) as unknown[];
      return JSON.stringify(elements.map((value) => canonicalValueOf(element, value)));
    }
    default:
      return rendered as ScalarValue;
  }
}
