import type { FieldType } from '../schema/field-type.ts';
import { TEXTUAL_TYPES } from '../schema/field-type.ts';
import type { ComparisonOperator } from './filter.ts';

const TEXT_OPERATORS: ReadonlySet<ComparisonOperator> = new Set([
  '_contains',
  '_ncontains',
  '_icontains',
  '_starts_with',
  '_nstarts_with',
  '_ends_with',
  '_nends_with',
]);
/** The operators that compare by order: on text, their answer depends on how text is ordered. */
export const ORDER_OPERATORS: ReadonlySet<ComparisonOperator> = new Set([
  '_lt',
  '_lte',
  '_gt',
  '_gte',
  '_between',
  '_nbetween',
]);
const NULL_OPERATORS: ReadonlySet<ComparisonOperator> = new Set(['_null', '_nnull', '_empty', '_nempty']);
/** On arrays: holds an element, holds none of a list's — Directus's names for the same tests on geometry. */
const ARRAY_OPERATORS: ReadonlySet<ComparisonOperator> = new Set([
  '_contains',
  '_ncontains',
  '_intersects',
  '_nintersects',
]);

/**
 * Which operators make sense on which field types. Substring operators need text; ordering needs a type
 * with a plain order (not json, whose jsonb ordering nobody means to ask for); arrays answer the element
 * tests (`_contains` an element, `_intersects` a list) and nothing else; `unknown` columns — types we do
 * not model — only answer the null tests.
 */
export function supportsOperator(type: FieldType, operator: ComparisonOperator): boolean {
  if (NULL_OPERATORS.has(operator)) return true;
  if (type === 'array') return ARRAY_OPERATORS.has(operator);
  if (type === 'unknown' || operator === '_intersects' || operator === '_nintersects') return false;
  if (TEXT_OPERATORS.has(operator)) return TEXTUAL_TYPES.has(type);
  if (ORDER_OPERATORS.has(operator)) return type !== 'json';
  return true;
}

/** `_contains`, `_starts_with` and the other substring tests on text (not the array tests of the same name). */
export function isTextOperator(operator: ComparisonOperator): boolean {
  return TEXT_OPERATORS.has(operator);
}

/** Sorting follows the same rule as ordering: a json, array or unknown column has no order we promise. */
export function isSortable(type: FieldType): boolean {
  return type !== 'json' && type !== 'array' && type !== 'unknown';
}
