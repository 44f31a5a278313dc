import type { CollectionSchema } from '../../domain/schema/collection-schema.ts';
import type { SelectedField, StoredItem } from '../ports/item-store.ts';

/**
 * Canonical items as the item API answers them (JSON array text, byte-identical to a list's `data`),
 * computed in process: realtime shapes each event once per group of subscribers, never with a query.
 * Only flat selections (no `nested`) are asked for.
 */
export interface ItemJsonFormat {
  format(
    items: ReadonlyArray<StoredItem>,
    select: ReadonlyArray<SelectedField>,
    collection: CollectionSchema,
  ): string;
}
