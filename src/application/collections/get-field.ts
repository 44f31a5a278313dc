import type { Accountability } from '../../domain/accountability.ts';
import { notFound } from '../../domain/errors.ts';
import { type CollectionSchema, type FieldSchema, fieldOf } from '../../domain/schema/collection-schema.ts';
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
    const { collection, field } = fieldAt(this.catalog, caller, request);
    return viewField(collection.name, field);
  }
}

/** The addressed field and its collection, for an admin; 404 when either is not there. */
export function fieldAt(
  catalog: SchemaCatalog,
  caller: Accountability,
  address: FieldAddress,
): { collection: CollectionSchema; field: FieldSchema } {
  requireAdmin(caller);
  const collection = collectionFor(catalog, caller, address.collection);
  const field = fieldOf(collection, address.field);
  if (!field) throw notFound('Field');
  return { collection, field };
}
