import type { Accountability } from '../../domain/accountability.ts';
import { isSystemCollection } from '../../domain/schema/collection-schema.ts';
import { requireAdmin } from '../access.ts';
import type { Handler } from '../handler.ts';
import { collectionFor } from '../items/collection-access.ts';
import type { SchemaCatalog } from '../ports/schema-catalog.ts';
import { type FieldView, viewField } from './collection-view.ts';

/**
 * The fields of one collection, or without one those of every collection in the order `GET /collections`
 * lists them: Directus's `GET /fields`, which `@directus/sdk`'s `readFields()` asks for.
 */
export class ListFieldsHandler implements Handler<{ collection?: string }, FieldView[]> {
  constructor(private readonly catalog: SchemaCatalog) {}

  async execute(caller: Accountability, request: { collection?: string }): Promise<FieldView[]> {
    requireAdmin(caller);
    const collections =
      request.collection === undefined
        ? [...this.catalog.current().collections.values()]
            .filter((collection) => !isSystemCollection(collection.name))
            .sort((a, b) => a.name.localeCompare(b.name))
        : [collectionFor(this.catalog, caller, request.collection)];
    return collections.flatMap((collection) =>
      collection.fields.map((field) => viewField(collection.name, field)),
    );
  }
}
