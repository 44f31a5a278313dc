import { notFound } from '../../domain/errors.ts';
import { coerceKey } from '../../domain/query/coerce-value.ts';
import type { ScalarValue } from '../../domain/query/filter.ts';
import { type CollectionSchema, type FieldSchema, fieldOf } from '../../domain/schema/collection-schema.ts';

/** The primary key field; a collection without one has no addressable items (404, as for a bad id). */
export function keyFieldOf(collection: CollectionSchema): FieldSchema {
  const field = collection.primaryKey === null ? undefined : fieldOf(collection, collection.primaryKey);
  if (!field) throw notFound();
  return field;
}

/**
 * A key from a URL or a body, coerced to the key's type. A key that cannot exist is answered like one
 * that does not: 404, so the answer never tells which keys are well-formed.
 */
export function itemKey(field: FieldSchema, raw: unknown): ScalarValue {
  const text = typeof raw === 'string' ? raw : typeof raw === 'number' ? String(raw) : null;
  const key = text === null ? null : coerceKey(field, text);
  if (key === null) throw notFound();
  return key;
}
