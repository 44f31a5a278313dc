import type { SelectedField, StoredItem } from '../../application/ports/item-store.ts';
import type { ItemJsonFormat } from '../../application/realtime/item-json-format.ts';
import type { CollectionSchema } from '../../domain/schema/collection-schema.ts';
import { rowJson } from '../persistence/memory/in-memory-item-json.ts';
import { RelatedRows } from '../persistence/memory/in-memory-related-rows.ts';

/** No rows across relations: realtime selections are flat (docs/api.md §12). */
const NO_RELATED = new RelatedRows(() => []);

/**
 * Items shaped by the in-memory store's formatting, which answers byte-identical to PostgreSQL's, so an
 * event's item reads exactly as the same row in a list on either storage.
 */
export class InProcessItemJson implements ItemJsonFormat {
  format(
    items: ReadonlyArray<StoredItem>,
    select: ReadonlyArray<SelectedField>,
    collection: CollectionSchema,
  ): string {
    return `[${items.map((item) => rowJson({ ...item }, select, collection, NO_RELATED)).join(',')}]`;
  }
}
