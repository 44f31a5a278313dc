import type { Accountability } from '../../domain/accountability.ts';
import { notFound } from '../../domain/errors.ts';
import { fieldOf } from '../../domain/schema/collection-schema.ts';
import { requireAdmin } from '../access.ts';
import { collectionFor } from '../items/collection-access.ts';
import type { SchemaCatalog } from '../ports/schema-catalog.ts';
import { type FieldView, viewField } from './collection-view.ts';

export class GetFieldHandler {
  constructor(private readonly catalog: SchemaCatalog) {}

  async execute(caller: Accountability, collectionName: string, name: string): Promise<FieldView> {
    requireAdmin(caller);
    const collection = collectionFor(this.catalog, caller, collectionName);
    const field = fieldOf(collection, name);
    if (!field) throw notFound('Field');
    return viewField(collection.name, field);
  }
}
