import { failedValidation } from '../errors.ts';
import { compareValues } from '../query/compare-values.ts';
import type { ScalarValue } from '../query/filter.ts';
import type { CollectionSchema } from '../schema/collection-schema.ts';
import { fieldOf } from '../schema/collection-schema.ts';

/**
 * An update payload (from parseItemPayload) without its primary key, which may appear only when it is the
 * key of the row being updated: clients send it back with the item, or name the row by it in a batch of
 * partial objects. Changing a key is refused (FAILED_VALIDATION naming it) — rows are addressed by their
 * key, and changing it would silently orphan whatever refers to the old one.
 * Dropping the key means it is not a payload field either, so the permission's `fields` need not name it.
 */
export function withoutUnchangedKey(
  payload: Readonly<Record<string, ScalarValue | null>>,
  collection: CollectionSchema,
  key: ScalarValue,
): Record<string, ScalarValue | null> {
  const name = collection.primaryKey;
  const field = name === null ? undefined : fieldOf(collection, name);
  if (!field || !Object.hasOwn(payload, field.name)) return { ...payload };
  const value = payload[field.name];
  if (value === null || value === undefined || compareValues(field.type, value, key) !== 0) {
    throw failedValidation(field.name, `The primary key "${field.name}" cannot be changed.`);
  }
  return Object.fromEntries(Object.entries(payload).filter(([entry]) => entry !== field.name));
}
