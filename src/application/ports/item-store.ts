import type { FilterNode, ScalarValue } from '../../domain/query/filter.ts';
import type { SortField } from '../../domain/query/item-query.ts';
import type { CollectionSchema } from '../../domain/schema/collection-schema.ts';

/** A field to return, and the condition under which its value is shown (else it reads as null). */
export type SelectedField = { readonly field: string; readonly visibleWhen: FilterNode | null };

/**
 * One read, fully decided by the application: every filter is parsed, coerced, and free of dynamic
 * values; every field exists. The store only translates it — one statement per call on PostgreSQL.
 */
export type ItemListRequest = {
  readonly collection: CollectionSchema;
  readonly select: ReadonlyArray<SelectedField>;
  /** Rows the caller may see (permission rule); null = all. `total_count` counts these. */
  readonly visible: FilterNode | null;
  /** The caller's filter and search, on top of `visible`; null = none. `filter_count` counts these. */
  readonly filter: FilterNode | null;
  readonly sort: ReadonlyArray<SortField>;
  /** null = no limit. */
  readonly limit: number | null;
  readonly offset: number;
  readonly count: { readonly total: boolean; readonly filtered: boolean };
};

export type ItemListResult = {
  /** The page as a JSON array text, values formatted per API.md §4, fields in `select` order. */
  readonly json: string;
  readonly totalCount?: number;
  readonly filterCount?: number;
};

export type ItemGetRequest = {
  readonly collection: CollectionSchema;
  readonly select: ReadonlyArray<SelectedField>;
  readonly visible: FilterNode | null;
  /** Primary key value, coerced to the key's type. */
  readonly id: ScalarValue;
};

export interface ItemStore {
  list(request: ItemListRequest): Promise<ItemListResult>;
  /** The item as JSON object text, or null when it does not exist or is not visible. */
  get(request: ItemGetRequest): Promise<string | null>;
}

/**
 * Thrown by a store when the database no longer has a table or column of the snapshot it was given
 * (changed by hand, outside the API): the caller re-reads the schema and tries once more.
 */
export class StaleSchemaError extends Error {
  constructor() {
    super('The database schema changed since it was last read.');
    this.name = 'StaleSchemaError';
  }
}
