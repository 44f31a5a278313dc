import type { Accountability } from '../../domain/accountability.ts';
import { requireAdmin } from '../access.ts';
import type { Handler } from '../handler.ts';
import { collectionFor } from '../items/collection-access.ts';
import type { SchemaCatalog } from '../ports/schema-catalog.ts';
import { type FieldView, viewField } from './collection-view.ts';

export class ListFieldsHandler implements Handler<{ collection: string }, FieldView[]> {
  constructor(private readonly catalog: SchemaCatalog) {}

  async execute(caller: Accountability, request: { collection: string }): Promise<FieldView[]> {
    requireAdmin(caller);
    const collection = collectionFor(this.catalog, caller, request.collection);
    return collection.fields.map((field) => viewField(collection.name, field));
  }
}
