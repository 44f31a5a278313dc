import type { FieldType } from '../schema/field-type.ts';
import { compareCodePoints } from './code-point-order.ts';
import { compareDecimals, normalizeDecimal } from './decimal-text.ts';
import type { ScalarValue } from './filter.ts';
import { nonFiniteRank } from './non-finite-values.ts';

/**
 * Orders two canonical values of one field type (negative, zero, positive) the way PostgreSQL does:
 * numbers by value — int8 and numeric exactly, as decimal text, never through a double, numeric's
 * ±Infinity at the ends and NaN above them; booleans false < true; everything else by code point of the
 * canonical text, which for uuid, date, time, timestamp and timestamptz (all UTC) is their natural order
 * (`-infinity` before every four-digit year, `infinity` after). Text columns compare by code point, which
 * is PostgreSQL's "C" collation; a database with a linguistic collation orders text differently.
 */
export function compareValues(type: FieldType, a: ScalarValue, b: ScalarValue): number {
  switch (type) {
    case 'integer':
      return Math.sign(Number(a) - Number(b));
    case 'float':
      return compareFloats(Number(a), Number(b));
    case 'bigInteger':
    case 'decimal':
      return compareExact(a, b);
    case 'boolean':
      return Number(a) - Number(b);
    default:
      return compareCodePoints(String(a), String(b));
  }
}

/** PostgreSQL's float order: ±Infinity at the ends, and NaN equal to itself and above everything else. */
function compareFloats(a: number, b: number): number {
  if (Number.isNaN(a) || Number.isNaN(b)) return Number(Number.isNaN(a)) - Number(Number.isNaN(b));
  return a === b ? 0 : a < b ? -1 : 1;
}

function compareExact(a: ScalarValue, b: ScalarValue): number {
  const rankA = nonFiniteRank(String(a));
  const rankB = nonFiniteRank(String(b));
  if (rankA !== 0 || rankB !== 0) return Math.sign(rankA - rankB);
  const decimalA = normalizeDecimal(String(a));
  const decimalB = normalizeDecimal(String(b));
  if (decimalA === null || decimalB === null) return compareCodePoints(String(a), String(b));
  return compareDecimals(decimalA, decimalB);
}
