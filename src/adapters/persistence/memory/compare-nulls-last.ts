import { compareValues } from '../../../domain/query/compare-values.ts';
import type { ScalarValue } from '../../../domain/query/filter.ts';
import type { FieldType } from '../../../domain/schema/field-type.ts';

/** Two values of a type in PostgreSQL's ascending order, where null is the largest value (nulls last). */
export function compareNullsLast(type: FieldType, a: ScalarValue | null, b: ScalarValue | null): number {
  if (a === null || b === null) return a === b ? 0 : a === null ? 1 : -1;
  return compareValues(type, a, b);
}
