import type { ItemListRequest } from '../../src/application/ports/item-store.ts';
import type { CollectionSchema } from '../../src/domain/schema/collection-schema.ts';

/** An ItemStore list request of `collection`: every row, unsorted, uncounted, nothing selected but `overrides`. */
export function listRequest(
  collection: CollectionSchema,
  overrides: Partial<ItemListRequest> = {},
): ItemListRequest {
  return {
    collection,
    select: [],
    visible: null,
    filter: null,
    sort: [],
    limit: null,
    offset: 0,
    count: { total: false, filtered: false },
    ...overrides,
  };
}
