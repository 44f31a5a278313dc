import { characterCount } from '../character-count.ts';
import { DomainError, failedValidation } from '../errors.ts';
import { isBlankPadded, paddedToLength } from '../query/blank-padded.ts';
import { coerceValue } from '../query/coerce-value.ts';
import type { ScalarValue } from '../query/filter.ts';
import { roundedForNumericColumn } from '../query/numeric-precision.ts';
import { roundedForTemporalColumn } from '../query/temporal-precision.ts';
import { elementField, type FieldSchema } from '../schema/collection-schema.ts';

/**
 * A value written into one column (docs/api.md §5), in canonical form (filter.ts, ScalarValue), or null for
 * SQL NULL. Refusals are FAILED_VALIDATION naming the field: the value does not fit the column, which is
 * a different answer from a bad filter operand (INVALID_QUERY), though the type rules are the same
 * coerceValue — whatever is accepted here PostgreSQL accepts too, so a bad value never reaches the SQL.
 *
 * A `numeric(p,s)` value is rounded to s places, and a `timestamp(n)`, `timestamptz(n)` or `time(n)` value to n
 * fractional digits, as the column keeps it. A `character(n)` value is padded to n as the column keeps it (blank-padded.ts), so that a rule's text
 * operators see on a new row what they see on it stored. An array's elements are each taken so.
 *
 * On json columns `null` is SQL NULL, never the JSON literal `null`: clients cannot tell the two apart
 * on reading (both are JSON null), and SQL NULL is what "no value" means in every other column.
 */
export function columnValue(field: FieldSchema, raw: unknown): ScalarValue | null {
  // Columns of types we do not model (arrays, geometry…) have no canonical form we could check.
  if (field.type === 'unknown') {
    throw failedValidation(field.name, `Field "${field.name}" has a type that cannot be written.`);
  }
  if (raw === null) {
    if (!field.nullable) throw failedValidation(field.name, `Field "${field.name}" may not be null.`);
    return null;
  }
  const coercedValue = coerced(field, raw);
  if (field.type === 'array' && typeof coercedValue === 'string') return elementsAsKept(field, coercedValue);
  return asKept(field, coercedValue);
}

/**
 * An array's elements as the column keeps them: each as a value of the element's type is (padded to a
 * `character(n)`, rounded to a `numeric(p,s)` or `timestamp(n)`), so that a rule's operators see on a new
 * row what they see on it stored. `json` is the canonical JSON text of the elements (coerce-value.ts).
 */
function elementsAsKept(field: FieldSchema, json: string): string {
  const element = elementField(field);
  const elements = JSON.parse(json) as ReadonlyArray<ScalarValue | null>;
  return JSON.stringify(elements.map((item) => (item === null ? null : asKept(element, item))));
}

/** A coerced value of one column (or one array element) as the column keeps it. */
function asKept(field: FieldSchema, coercedValue: ScalarValue): ScalarValue {
  const value =
    typeof coercedValue === 'string' && field.maxLength !== null && isBlankPadded(field)
      ? paddedToLength(coercedValue, field.maxLength)
      : coercedValue;
  // PostgreSQL counts varchar(n) in characters, i.e. code points, not UTF-16 units.
  if (
    value === null ||
    (field.maxLength !== null &&
      typeof value === 'string' &&
      characterCount(value, field.maxLength) > field.maxLength)
  ) {
    throw failedValidation(field.name, `Field "${field.name}" is longer than ${field.maxLength} characters.`);
  }
  if (
    typeof value === 'string' &&
    (field.type === 'timestamp' || field.type === 'dateTime' || field.type === 'time')
  ) {
    const rounded = roundedForTemporalColumn(field, value);
    if (rounded === null) {
      throw failedValidation(
        field.name,
        `Value ${value} of field "${field.name}" rounds, in ${field.dbType}, to one outside the range the API takes.`,
      );
    }
    return rounded;
  }
  if (field.type === 'decimal' && typeof value === 'string') {
    const rounded = roundedForNumericColumn(field.dbType, value);
    if (rounded === null) {
      throw failedValidation(
        field.name,
        `Value ${value} of field "${field.name}" is too large for ${field.dbType}.`,
      );
    }
    return rounded;
  }
  return value;
}

function coerced(field: FieldSchema, raw: unknown): ScalarValue {
  try {
    return coerceValue(field, raw);
  } catch (error) {
    if (error instanceof DomainError) throw failedValidation(field.name, error.message);
    throw error;
  }
}
