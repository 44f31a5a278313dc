import type { Accountability } from '../../domain/accountability.ts';
import type { ReadRule } from '../../domain/permissions/read-rule.ts';
import { assertFilterQueryable } from '../../domain/permissions/readable-fields.ts';
import { bindDynamicValues } from '../../domain/query/bind-dynamic-values.ts';
import { allOf } from '../../domain/query/combine-filters.ts';
import { matchesFilter } from '../../domain/query/evaluate-filter.ts';
import { parseFilter } from '../../domain/query/parse-filter.ts';
import type { CollectionSchema } from '../../domain/schema/collection-schema.ts';
import type { ItemWriter, StoredItem } from '../ports/item-store.ts';

/** Whether the caller may read this row: writes answer 404 for rows they could not GET. */
export function isVisible(rule: ReadRule, row: StoredItem, collection: CollectionSchema): boolean {
  return rule.rows === null || matchesFilter(rule.rows, row, collection);
}

/**
 * The rows a `{ query: { filter } }` write targets, locked: those matching the filter among the rows the
 * caller may read. Filtering on a field the caller may not read is refused, as for GET.
 */
export function lockVisibleMatching(
  caller: Accountability,
  collection: CollectionSchema,
  rule: ReadRule,
  writer: ItemWriter,
  rawFilter: unknown,
  now: Date,
): Promise<StoredItem[]> {
  const filter = parseFilter(rawFilter, collection);
  assertFilterQueryable(caller, rule, filter);
  const bound = bindDynamicValues(filter, { user: caller.user, role: caller.role, now }, collection);
  return writer.lockMatching(collection, rule.rows ? allOf([bound, rule.rows]) : bound);
}
