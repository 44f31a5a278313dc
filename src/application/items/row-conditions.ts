import type { Accountability } from '../../domain/accountability.ts';
import type { ReadRule } from '../../domain/permissions/read-rule.ts';
import { queryableFields } from '../../domain/permissions/readable-fields.ts';
import { bindDynamicValues } from '../../domain/query/bind-dynamic-values.ts';
import { allOf } from '../../domain/query/combine-filters.ts';
import type { BoundFilterNode, FilterNode } from '../../domain/query/filter.ts';
import { searchFilter } from '../../domain/query/search-filter.ts';
import type { CollectionSchema } from '../../domain/schema/collection-schema.ts';
import { TEXTUAL_TYPES } from '../../domain/schema/field-type.ts';

/**
 * A read's `filter` and `search` as one bound condition on top of the caller's read rule, or null for
 * none (docs/api.md §4). Search covers the text fields readable on every visible row: a field shown on
 * some rows only would let a match reveal its hidden values.
 */
export function rowConditions(
  caller: Accountability,
  rule: ReadRule,
  collection: CollectionSchema,
  query: { readonly filter: FilterNode | null; readonly search: string | null },
  now: Date,
): BoundFilterNode | null {
  const conditions: BoundFilterNode[] = [];
  if (query.filter) {
    conditions.push(
      bindDynamicValues(query.filter, { user: caller.user, role: caller.role, now }, collection),
    );
  }
  if (query.search !== null) conditions.push(searchCondition(rule, collection, query.search));
  return conditions.length === 0 ? null : allOf(conditions);
}

/** `search` over the text fields readable on every row the rule shows (see rowConditions). */
export function searchCondition(
  rule: ReadRule,
  collection: CollectionSchema,
  search: string,
): BoundFilterNode {
  const queryable = new Set(queryableFields(rule));
  const searchable = collection.fields.filter(
    (field) => TEXTUAL_TYPES.has(field.type) && queryable.has(field.name),
  );
  return searchFilter(search, searchable);
}
