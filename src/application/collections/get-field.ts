import type { Accountability } from '../../domain/accountability.ts';
import { notFound } from '../../domain/errors.ts';
import { fieldOf } from '../../domain/schema/collection-schema.ts';
import { requireAdmin } from '../access.ts';
import type { Handler } from '../handler.ts';
import { collectionFor } from '../items/collection-access.ts';
import type { SchemaCatalog } from '../ports/schema-catalog.ts';
import { type FieldView, viewField } from './collection-view.ts';

/** One field of one collection, by their names. */
export type FieldAddress = { collection: string; field: string };

export class GetFieldHandler implements Handler<FieldAddress, FieldView> {
  constructor(private readonly catalog: SchemaCatalog) {}

  async execute(caller: Accountability, request: FieldAddress): Promise<FieldView> {
    requireAdmin(caller);
    const collection = collectionFor(this.catalog, caller, request.collection);
    const field = fieldOf(collection, request.field);
    if (!field) throw notFound('Field');
    return viewField(collection.name, field);
  }
}
