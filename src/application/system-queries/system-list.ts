import type { ItemQuery } from '../../domain/query/item-query.ts';
import type { SystemPage } from '../ports/system-query.ts';
import { type SystemRecord, selectFields } from './select-fields.ts';

/** A page of a system collection as answered, with the counts asked for (docs/api.md §4 `meta`). */
export type SystemList = {
  readonly data: ReadonlyArray<SystemRecord>;
  readonly meta: { readonly total_count?: number; readonly filter_count?: number };
};

/** The page's records, each viewed as the API shows it and narrowed to `fields`. */
export function systemList<T>(
  page: SystemPage<T>,
  view: (record: T) => SystemRecord,
  fields: ItemQuery['fields'],
): SystemList {
  return {
    data: page.records.map((record) => selectFields(view(record), fields)),
    meta: {
      ...(page.totalCount === undefined ? {} : { total_count: page.totalCount }),
      ...(page.filterCount === undefined ? {} : { filter_count: page.filterCount }),
    },
  };
}
