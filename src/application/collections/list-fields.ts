import type { Accountability } from '../../domain/accountability.ts';
import { requireAdmin } from '../access.ts';
import { collectionFor } from '../items/collection-access.ts';
import type { SchemaCatalog } from '../ports/schema-catalog.ts';
import { type FieldView, viewField } from './collection-view.ts';

export class ListFieldsHandler {
  constructor(private readonly catalog: SchemaCatalog) {}

  async execute(caller: Accountability, collectionName: string): Promise<FieldView[]> {
    requireAdmin(caller);
    const collection = collectionFor(this.catalog, caller, collectionName);
    return collection.fields.map((field) => viewField(collection.name, field));
  }
}
