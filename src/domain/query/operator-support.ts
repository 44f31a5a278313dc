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
const ORDER_OPERATORS: ReadonlySet<ComparisonOperator> = new Set([
  '_lt',
  '_lte',
  '_gt',
  '_gte',
  '_between',
  '_nbetween',
]);
const NULL_OPERATORS: ReadonlySet<ComparisonOperator> = new Set(['_null', '_nnull', '_empty', '_nempty']);

/**
 * Which operators make sense on which field types. Substring operators need text; ordering needs a type
 * with a plain order (not json, whose jsonb ordering nobody means to ask for); `unknown` columns — types
 * we do not model — only answer the null tests.
 */
export function supportsOperator(type: FieldType, operator: ComparisonOperator): boolean {
  if (NULL_OPERATORS.has(operator)) return true;
  if (type === 'unknown') return false;
  if (TEXT_OPERATORS.has(operator)) return TEXTUAL_TYPES.has(type);
  if (ORDER_OPERATORS.has(operator)) return type !== 'json';
  return true;
}

/** Sorting follows the same rule as ordering: a json or unknown column has no order we promise. */
export function isSortable(type: FieldType): boolean {
  return type !== 'json' && type !== 'unknown';
}
