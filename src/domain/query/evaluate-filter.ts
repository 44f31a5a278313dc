import type { CollectionSchema, FieldSchema } from '../schema/collection-schema.ts';
import { elementField, fieldOf } from '../schema/collection-schema.ts';
import { TEXTUAL_TYPES } from '../schema/field-type.ts';
import { comparedValue } from './blank-padded.ts';
import { compareValues } from './compare-values.ts';
import type { BoundFilterNode, Condition, ScalarValue } from './filter.ts';
import { invalidQuery } from './invalid-query.ts';
import { lowerCaseByCodePoint } from './lower-case.ts';
import type { RelationalHop } from './relational-hop.ts';

/**
 * The rows at the other end of `hop` from `item` (the one row it points at, or the rows pointing at it),
 * as canonical values: supplied by a store that holds them, so that this module knows no store.
 */
export type RelatedRowsOf = (
  hop: RelationalHop,
  item: Readonly<Record<string, unknown>>,
) => ReadonlyArray<Readonly<Record<string, unknown>>>;

/**
 * Whether an item matches a bound filter, with PostgreSQL's semantics on canonical values (filter.ts):
 * a null field matches only `_null` and `_empty` — every other operator, negations included, is unknown
 * on null and so false (SQL three-valued logic). Substrings are literal (`%` and `_` are plain
 * characters). `_icontains` lower-cases both sides code point by code point, as PostgreSQL's ILIKE does on
 * a libc collation (lower-case.ts). Arrays (canonical JSON text) are tested element by element with their
 * element type's equality, as PostgreSQL's `@>` and `&&` do; an empty array is `_empty`.
 *
 * The item must hold canonical values (coerceValue's output) or null; missing fields read as null.
 *
 * A condition across a relation is evaluated on the rows `related` finds (`some`: one of them matches,
 * `none`: none does), as PostgreSQL's `exists` would; without `related` it cannot be, and throws — the
 * filters evaluated without a store (permission rules, write checks) never hold one.
 */
export function matchesFilter(
  node: BoundFilterNode,
  item: Readonly<Record<string, unknown>>,
  collection: CollectionSchema,
  related?: RelatedRowsOf,
): boolean {
  switch (node.kind) {
    case 'and':
      return node.nodes.every((child) => matchesFilter(child, item, collection, related));
    case 'or':
      return node.nodes.some((child) => matchesFilter(child, item, collection, related));
    case 'relation': {
      if (!related) {
        throw new Error('A condition across a relation needs the related rows: not evaluated in process');
      }
      const found = related(node.hop, item).some((row) =>
        matchesFilter(node.node, row, node.hop.collection, related),
      );
      return node.quantifier === 'some' ? found : !found;
    }
    default:
      return matchesCondition(node, item, collection);
  }
}

function matchesCondition(
  condition: Condition<ScalarValue>,
  item: Readonly<Record<string, unknown>>,
  collection: CollectionSchema,
): boolean {
  const field = fieldOf(collection, condition.field);
  if (!field) {
    throw invalidQuery(`Unknown field "${condition.field}" in filter.`, {
      field: condition.field,
      reason: 'UNKNOWN_FIELD',
    });
  }
  const stored = fieldValue(item, field.name);
  // A comparison, `_empty` included, does not see a character(n) value's padding; the text operators do.
  const value = stored === null ? null : comparedValue(field, stored);
  const emptyValue = TEXTUAL_TYPES.has(field.type) ? '' : field.type === 'array' ? '[]' : null;
  switch (condition.operator) {
    case '_null':
      return value === null;
    case '_nnull':
      return value !== null;
    case '_empty':
      return value === null || value === emptyValue;
    case '_nempty':
      return value !== null && value !== emptyValue;
  }
  if (stored === null || value === null) return false;
  if (field.type === 'array') return matchesArray(condition, field, String(value));
  const compare = (operand: ScalarValue) => compareValues(field.type, value, operand);
  switch (condition.operator) {
    case '_in':
      return condition.values.some((operand) => compare(operand) === 0);
    case '_nin':
      return condition.values.every((operand) => compare(operand) !== 0);
    case '_between':
      return compare(condition.values[0]) >= 0 && compare(condition.values[1]) <= 0;
    case '_nbetween':
      return compare(condition.values[0]) < 0 || compare(condition.values[1]) > 0;
    case '_intersects':
    case '_nintersects':
      throw new Error(`Operator "${condition.operator}" applies to arrays only`);
  }
  return matchesValue(condition.operator, field, value, stored, condition.value);
}

/** `_contains`/`_ncontains` one element, `_intersects`/`_nintersects` a list (operator-support.ts). */
function matchesArray(condition: Condition<ScalarValue>, field: FieldSchema, value: string): boolean {
  const element = elementField(field);
  const elements = (JSON.parse(value) as Array<ScalarValue | null>).filter((item) => item !== null);
  const holds = (operand: ScalarValue) =>
    elements.some((item) => compareValues(element.type, item, operand) === 0);
  switch (condition.operator) {
    case '_contains':
      return holds(condition.value);
    case '_ncontains':
      return !holds(condition.value);
    case '_intersects':
      return condition.values.some(holds);
    case '_nintersects':
      return !condition.values.some(holds);
    default:
      throw new Error(`Operator "${condition.operator}" does not apply to arrays`);
  }
}

function matchesValue(
  operator: Extract<Condition<ScalarValue>, { value: ScalarValue }>['operator'],
  field: FieldSchema,
  value: ScalarValue,
  stored: ScalarValue,
  operand: ScalarValue,
): boolean {
  const text = String(stored);
  const needle = String(operand);
  switch (operator) {
    case '_eq':
      return compareValues(field.type, value, operand) === 0;
    case '_neq':
      return compareValues(field.type, value, operand) !== 0;
    case '_lt':
      return compareValues(field.type, value, operand) < 0;
    case '_lte':
      return compareValues(field.type, value, operand) <= 0;
    case '_gt':
      return compareValues(field.type, value, operand) > 0;
    case '_gte':
      return compareValues(field.type, value, operand) >= 0;
    case '_contains':
      return text.includes(needle);
    case '_ncontains':
      return !text.includes(needle);
    case '_icontains':
      return lowerCaseByCodePoint(text).includes(lowerCaseByCodePoint(needle));
    case '_starts_with':
      return text.startsWith(needle);
    case '_nstarts_with':
      return !text.startsWith(needle);
    case '_ends_with':
      return text.endsWith(needle);
    case '_nends_with':
      return !text.endsWith(needle);
  }
}

/** Own properties only (a field named `constructor` must not read Object.prototype), as a scalar or null. */
function fieldValue(item: Readonly<Record<string, unknown>>, name: string): ScalarValue | null {
  if (!Object.hasOwn(item, name)) return null;
  const value = item[name];
  if (value === null || value === undefined) return null;
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}
