import type { CollectionSchema } from '../schema/collection-schema.ts';
import { fieldOf } from '../schema/collection-schema.ts';
import { comparedValue } from './blank-padded.ts';
import { allOf, anyOf } from './combine-filters.ts';
import { type BoundFilterNode, MATCH_NONE, type ScalarValue } from './filter.ts';
import type { SortField } from './item-query.ts';

/**
 * The order a keyset page walks: the requested sort, cut after the primary key when it is sorted on (a
 * unique field decides every tie, so later fields never matter) and otherwise ended by it ascending, as
 * the stores order rows. Null for a collection without a primary key: nothing makes its order total.
 */
export function keysetOf(sort: ReadonlyArray<SortField>, collection: CollectionSchema): SortField[] | null {
  const { primaryKey } = collection;
  if (primaryKey === null) return null;
  const keyAt = sort.findIndex(({ field }) => field === primaryKey);
  if (keyAt !== -1) return sort.slice(0, keyAt + 1);
  return [...sort, { field: primaryKey, direction: 'asc' }];
}

/**
 * The rows that come after a row with these keyset values, in PostgreSQL's order (nulls last ascending,
 * first descending): `k1 after v1, or k1 = v1 and k2 after v2, or …`. When the first field is not null,
 * the whole is also bounded by it (`k1 >= v1` ascending), so that an index on it can start the scan at
 * the cursor rather than filter every row before it.
 *
 * `values` are canonical and line up with `keyset`; null stands for SQL NULL.
 */
export function afterCondition(
  keyset: ReadonlyArray<SortField>,
  values: ReadonlyArray<ScalarValue | null>,
  collection: CollectionSchema,
): BoundFilterNode {
  const levels: BoundFilterNode[] = [];
  const equal: BoundFilterNode[] = [];
  keyset.forEach((sort, index) => {
    const value = keysetValue(sort, values[index] ?? null, collection);
    levels.push(allOf([...equal, after(sort, value, nullable(sort.field, collection))]));
    equal.push(sameAs(sort.field, value));
  });
  const first = keyset[0];
  const firstValue = first ? keysetValue(first, values[0] ?? null, collection) : null;
  const bound =
    first && keyset.length > 1 && !nullable(first.field, collection) ? notBefore(first, firstValue) : null;
  return allOf(bound ? [bound, anyOf(levels)] : [anyOf(levels)]);
}

/**
 * A row's value as the comparisons after it see it: a `character(n)` value without its padding, which a
 * comparison ignores (blank-padded.ts) — `code > 'ab '` would skip the other rows holding `'ab '`.
 */
function keysetValue(
  { field }: SortField,
  value: ScalarValue | null,
  collection: CollectionSchema,
): ScalarValue | null {
  const schema = fieldOf(collection, field);
  return value === null || !schema ? value : comparedValue(schema, value);
}

/** The values strictly after `value` in the field's direction, nulls placed as PostgreSQL places them. */
function after(
  { field, direction }: SortField,
  value: ScalarValue | null,
  nullable: boolean,
): BoundFilterNode {
  if (direction === 'asc') {
    // Nulls come last: after a null there is only another null, which is a tie, not "after".
    if (value === null) return MATCH_NONE;
    const greater: BoundFilterNode = { kind: 'condition', field, operator: '_gt', value };
    return nullable ? anyOf([greater, { kind: 'condition', field, operator: '_null' }]) : greater;
  }
  // Descending, nulls come first: after a null come all the values.
  if (value === null) return { kind: 'condition', field, operator: '_nnull' };
  return { kind: 'condition', field, operator: '_lt', value };
}

/** A tie on this field: equal values, or both null. */
function sameAs(field: string, value: ScalarValue | null): BoundFilterNode {
  if (value === null) return { kind: 'condition', field, operator: '_null' };
  return { kind: 'condition', field, operator: '_eq', value };
}

/** The redundant range bound on a not-null first field, which lets an index scan start at the cursor. */
function notBefore({ field, direction }: SortField, value: ScalarValue | null): BoundFilterNode | null {
  if (value === null) return null;
  return { kind: 'condition', field, operator: direction === 'asc' ? '_gte' : '_lte', value };
}

function nullable(field: string, collection: CollectionSchema): boolean {
  return fieldOf(collection, field)?.nullable ?? true;
}
