import { characterCount } from '../character-count.ts';
import { DomainError } from '../errors.ts';
import { elementField, type FieldSchema } from '../schema/collection-schema.ts';
import { comparedValue } from './blank-padded.ts';
import { canonicalJson } from './canonical-json.ts';
import { normalizeDecimal } from './decimal-text.ts';
import type { ComparisonOperator, ScalarValue } from './filter.ts';
import { describeInput, invalidQuery } from './invalid-query.ts';
import { INFINITE_TEMPORALS, NON_FINITE_NUMBERS } from './non-finite-values.ts';
import { fitsNumericColumn } from './numeric-precision.ts';
import { isTextOperator } from './operator-support.ts';
import { canonicalDate, canonicalDateTime, canonicalTime, canonicalTimestamp } from './temporal-text.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const INTEGER_TEXT = /^[+-]?\d{1,30}$/;
const FLOAT_TEXT = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d{1,5})?$/;
const MAX_FLOAT_TEXT = 400;

const INT2 = { min: -32768, max: 32767 };
const INT4 = { min: -2147483648, max: 2147483647 };
const INT8 = { min: -(2n ** 63n), max: 2n ** 63n - 1n };

/**
 * Turns a filter operand into the canonical value of its field's type (filter.ts, ScalarValue).
 * Query-string values arrive as text ("10", "true"), JSON filters as numbers, booleans and strings; both
 * spellings of a value mean the same thing. Input is taken verbatim: no trimming, so `" 12 "` is not an
 * integer. Anything PostgreSQL would refuse for the column type is refused here, as INVALID_QUERY,
 * so a bad value is a 400 and never a database error.
 */
export function coerceValue(field: FieldSchema, raw: unknown): ScalarValue {
  const value = canonicalValue(field, raw);
  if (value === null) {
    // "Invalid value 12 for…", but "…: an object", which does not read as a value.
    const shown = describeInput(raw);
    const where = `field "${field.name}" (${field.type})`;
    const message =
      typeof raw === 'object' && raw !== null
        ? `Invalid value for ${where}: ${shown}.`
        : `Invalid value ${shown} for ${where}.`;
    throw invalidQuery(message, {
      field: field.name,
      reason: 'INVALID_VALUE',
    });
  }
  return value;
}

/**
 * The field an operand is coerced against: an array's operands are its elements; a text operator's operand
 * on an enum is a pattern matched against the label's text (`_starts_with: "ha"`), not a label itself.
 */
export function operandField(field: FieldSchema, operator: ComparisonOperator): FieldSchema {
  if (field.type === 'array') return elementField(field);
  if (field.choices !== undefined && isTextOperator(operator)) return { ...field, choices: undefined };
  return field;
}

/** An id from a URL, coerced to the key's type; null for a malformed key (which answers 404, like a missing one). */
export function coerceKey(field: FieldSchema, raw: string): ScalarValue | null {
  try {
    return coerceValue(field, raw);
  } catch (error) {
    if (error instanceof DomainError) return null;
    throw error;
  }
}

function canonicalValue(field: FieldSchema, raw: unknown): ScalarValue | null {
  switch (field.type) {
    case 'uuid':
      return typeof raw === 'string' && UUID.test(raw) ? raw.toLowerCase() : null;
    case 'string':
    case 'text':
      return choiceValue(field, textValue(raw));
    case 'integer':
      return integerValue(raw, field.dbType === 'smallint' ? INT2 : INT4);
    case 'bigInteger':
      return bigIntegerValue(raw);
    case 'float':
      return floatValue(raw, field.dbType === 'real');
    case 'decimal':
      return decimalValue(raw);
    case 'boolean':
      return booleanValue(raw);
    case 'timestamp':
      return temporalValue(raw, canonicalTimestamp);
    case 'dateTime':
      return temporalValue(raw, canonicalDateTime);
    case 'date':
      return temporalValue(raw, canonicalDate);
    case 'time':
      return typeof raw === 'string' ? canonicalTime(raw) : null;
    case 'json':
      // The operand is a JSON value; a string is a JSON string (so the bracket form only reaches strings).
      return canonicalJson(raw);
    case 'array':
      return arrayValue(field, raw);
    case 'unknown':
      // Columns of types we do not model (geometry, intervals…) are compared only with _null/_nnull.
      return null;
  }
}

/** An enum takes its labels only, exactly as declared (PostgreSQL's enum input is case-sensitive). */
function choiceValue(field: FieldSchema, text: string | null): string | null {
  if (text === null || field.choices === undefined) return text;
  return field.choices.includes(text) ? text : null;
}

/**
 * A whole array (a write; filters coerce single elements, see parse-filter.ts): a JSON array, one level
 * deep, of the element type's values or null. Its canonical form is the JSON text of the canonical
 * elements — `[1,null,3]`, `["9007199254740993"]` for int8 — so that it is a ScalarValue like json's.
 */
function arrayValue(field: FieldSchema, raw: unknown): string | null {
  if (!Array.isArray(raw)) return null;
  const element = elementField(field);
  const elements: Array<ScalarValue | null> = [];
  for (const item of raw as ReadonlyArray<unknown>) {
    if (item === null) {
      elements.push(null);
      continue;
    }
    const value = canonicalValue(element, item);
    if (value === null) return null;
    // PostgreSQL counts varchar(n) in characters, i.e. code points, not UTF-16 units; a character(n)
    // drops the spaces past n (blank-padded.ts), so they do not count.
    const counted = comparedValue(element, value);
    if (
      element.maxLength !== null &&
      typeof counted === 'string' &&
      characterCount(counted, element.maxLength) > element.maxLength
    ) {
      return null;
    }
    if (
      element.type === 'decimal' &&
      typeof value === 'string' &&
      !fitsNumericColumn(element.dbType, value)
    ) {
      return null;
    }
    elements.push(value);
  }
  return JSON.stringify(elements);
}
/** A number is accepted as its text (`{"code": {"_eq": 42}}` on a varchar). PostgreSQL text cannot hold NUL. */
function textValue(raw: unknown): string | null {
  if (typeof raw === 'number') return Number.isFinite(raw) ? String(raw) : null;
  if (typeof raw !== 'string' || raw.includes('\u0000')) return null;
  return raw;
}

function integerValue(raw: unknown, range: { min: number; max: number }): number | null {
  let value: number;
  if (typeof raw === 'number') value = raw;
  else if (typeof raw === 'string' && INTEGER_TEXT.test(raw)) value = Number(raw);
  else return null;
  if (!Number.isInteger(value) || value < range.min || value > range.max) return null;
  return value === 0 ? 0 : value; // no -0
}

/** Digits as text: a JSON number beyond 2^53 has already lost digits, so only safe integers come as numbers. */
function bigIntegerValue(raw: unknown): string | null {
  let value: bigint;
  if (typeof raw === 'number' && Number.isSafeInteger(raw)) value = BigInt(raw);
  else if (typeof raw === 'string' && INTEGER_TEXT.test(raw)) value = BigInt(raw);
  else return null;
  return value < INT8.min || value > INT8.max ? null : value.toString();
}

function floatValue(raw: unknown, single: boolean): number | string | null {
  if (NON_FINITE_NUMBERS.has(raw)) return raw as string;
  let value: number;
  if (typeof raw === 'number') value = raw;
  else if (typeof raw === 'string' && raw.length <= MAX_FLOAT_TEXT && FLOAT_TEXT.test(raw)) {
    value = Number(raw);
    // PostgreSQL refuses underflow ("1e-400" is out of range) rather than reading it as zero.
    if (value === 0 && /[1-9]/.test(raw.split(/[eE]/)[0]!)) return null;
  } else return null;
  if (!Number.isFinite(value)) return null;
  if (!single) return value === 0 ? 0 : value;
  // `real` columns: compare with the value PostgreSQL would store, refusing what it would refuse — a value
  // that rounds (to nearest, as strtof does) to infinity or to zero. `3.4028235e38`, which PostgreSQL
  // answers for the largest real, rounds to it, so it is taken back.
  const rounded = Math.fround(value);
  if (!Number.isFinite(rounded) || (rounded === 0 && value !== 0)) return null;
  return rounded === 0 ? 0 : rounded;
}

function decimalValue(raw: unknown): string | null {
  if (NON_FINITE_NUMBERS.has(raw)) return raw as string;
  if (typeof raw === 'number') return Number.isFinite(raw) ? normalizeDecimal(String(raw)) : null;
  return typeof raw === 'string' ? normalizeDecimal(raw) : null;
}

/** A date or timestamp in the forms of temporal-text.ts, or ±infinity spelled as the API writes it. */
function temporalValue(raw: unknown, canonical: (text: string) => string | null): string | null {
  if (typeof raw !== 'string') return null;
  return INFINITE_TEMPORALS.has(raw) ? raw : canonical(raw);
}

function booleanValue(raw: unknown): boolean | null {
  if (raw === true || raw === 'true' || raw === '1' || raw === 1) return true;
  if (raw === false || raw === 'false' || raw === '0' || raw === 0) return false;
  return null;
}
