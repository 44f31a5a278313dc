import type { DatabaseWork } from '../../domain/database-work.ts';
import type { BoundFilterNode } from '../../domain/query/filter.ts';
import type { SortField } from '../../domain/query/item-query.ts';

/**
 * A list query over a system table (users, roles, permissions), in the terms of its public fields
 * (application/system-queries/system-collections.ts): the caller's filter and search already combined
 * and bound. Repositories answer it in one statement; the order is `sort`, then the table's own list
 * order, so pages never overlap.
 */
export type SystemQuery = {
  readonly filter: BoundFilterNode | null;
  readonly sort: ReadonlyArray<SortField>;
  /** null = no limit. */
  readonly limit: number | null;
  readonly offset: number;
  readonly count: { readonly total: boolean; readonly filtered: boolean };
  /** The request's database work (`caller.work`), which bounds the statement; absent, not a request's. */
  readonly work?: DatabaseWork;
};

/** One page of records, with the counts the query asked for. */
export type SystemPage<T> = {
  readonly records: ReadonlyArray<T>;
  readonly totalCount?: number;
  readonly filterCount?: number;
};
