import { crossesRelation } from '../../domain/query/crosses-relation.ts';
import type { BoundFilterNode } from '../../domain/query/filter.ts';
import type { ItemQuery } from '../../domain/query/item-query.ts';
import type { ItemListRequest, ItemListResult } from '../ports/item-store.ts';

/** The counts a list asks its store for, and which of the estimates asked for the exact counts answer. */
export type ListCounts = {
  readonly count: ItemListRequest['count'];
  readonly exactTotalEstimate: boolean;
  readonly exactFilterEstimate: boolean;
};

/**
 * The counts of a list (docs/api.md §4, `meta`). The planner estimates from the statistics of every row
 * of the table, the rows the caller may not read included: under a row rule, the estimate for
 * `filter[title][_starts_with]=merger` tells how many rows of the whole table start so, where the caller
 * may read none. So an estimate is asked of the planner only where nothing in its condition hides rows:
 * no row rule, and for the filtered count no filter across a relation (each carries the related
 * collection's rule). Otherwise the exact count answers it (docs/decisions/0056).
 */
export function listCounts(
  meta: ItemQuery['meta'],
  visible: BoundFilterNode | null,
  filter: BoundFilterNode | null,
): ListCounts {
  const exactTotalEstimate = meta.estimatedTotalCount && visible !== null;
  const exactFilterEstimate =
    meta.estimatedFilterCount && (visible !== null || (filter !== null && crossesRelation(filter)));
  return {
    count: {
      total: meta.totalCount || exactTotalEstimate,
      filtered: meta.filterCount || exactFilterEstimate,
      estimatedTotal: meta.estimatedTotalCount && !exactTotalEstimate,
      estimatedFiltered: meta.estimatedFilterCount && !exactFilterEstimate,
    },
    exactTotalEstimate,
    exactFilterEstimate,
  };
}

/** The store's answer with the counts as asked: an estimate answered exactly under its own name only. */
export function asAsked(result: ItemListResult, meta: ItemQuery['meta'], counts: ListCounts): ItemListResult {
  if (!counts.exactTotalEstimate && !counts.exactFilterEstimate) return result;
  const { totalCount, filterCount, estimatedTotalCount, estimatedFilterCount, ...page } = result;
  const total = counts.exactTotalEstimate ? totalCount : estimatedTotalCount;
  const filtered = counts.exactFilterEstimate ? filterCount : estimatedFilterCount;
  return {
    ...page,
    ...(meta.totalCount && totalCount !== undefined ? { totalCount } : {}),
    ...(meta.filterCount && filterCount !== undefined ? { filterCount } : {}),
    ...(total !== undefined ? { estimatedTotalCount: total } : {}),
    ...(filtered !== undefined ? { estimatedFilterCount: filtered } : {}),
  };
}
