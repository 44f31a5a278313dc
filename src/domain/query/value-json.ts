import { elementField, type FieldSchema } from '../schema/collection-schema.ts';
import { normalizeDecimal } from './decimal-text.ts';
import type { ScalarValue } from './filter.ts';
import { nonFiniteRank } from './non-finite-values.ts';

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const NUMERIC_SCALE = /^numeric\(\d+,(\d+)\)$/;

/**
 * A canonical value as JSON text, per docs/api.md §4 "Value formats": int8 as a number when it is a safe
 * integer (|v| ≤ 2^53 − 1), else a string; numeric as a number when its text survives a round trip
 * through a double (`0.1`, `19.99`, `1.10` → 1.1), else its exact text (`"12345678901234567.89"`, padded to the column's
 * scale as PostgreSQL prints it); json as the JSON value itself; an array as the JSON array of its
 * elements' forms; everything else as its canonical form.
 */
export function valueJson(field: FieldSchema, value: ScalarValue | null): string {
  if (value === null) return 'null';
  switch (field.type) {
    case 'bigInteger': {
      const integer = BigInt(value);
      const safe = integer <= MAX_SAFE && integer >= -MAX_SAFE;
      return safe ? integer.toString() : JSON.stringify(integer.toString());
    }
    case 'decimal':
      return decimalJson(field, String(value));
    case 'json':
      return String(value);
    case 'array': {
      const element = elementField(field);
      const elements = JSON.parse(String(value)) as Array<ScalarValue | null>;
      return `[${elements.map((item) => valueJson(element, item)).join(',')}]`;
    }
    default:
      return JSON.stringify(value);
  }
}

function decimalJson(field: FieldSchema, text: string): string {
  const exact = normalizeDecimal(text);
  const double = Number(text);
  // Like the SQL store: only values in the normal double range are candidates (numeric → float8 raises
  // outside it), so subnormals stay text.
  const inRange = double === 0 || (Math.abs(double) >= 1e-307 && Math.abs(double) <= 1e308);
  if (exact !== null && inRange && normalizeDecimal(String(double)) === exact) {
    return JSON.stringify(double);
  }
  return JSON.stringify(withScale(exact ?? text, field.dbType));
}

function withScale(text: string, dbType: string): string {
  const scale = Number(NUMERIC_SCALE.exec(dbType)?.[1] ?? 0);
  // NaN (a bounded column's only non-finite value) has no places to pad.
  if (scale === 0 || nonFiniteRank(text) !== 0) return text;
  const [whole, fraction = ''] = text.split('.');
  return `${whole}.${fraction.padEnd(scale, '0')}`;
}

/** An item as a JSON object text, fields in the given order. Built as text: a `__proto__` column stays a column. */
export function itemJson(entries: ReadonlyArray<readonly [name: string, json: string]>): string {
  return `{${entries.map(([name, json]) => `${JSON.stringify(name)}:${json}`).join(',')}}`;
}
