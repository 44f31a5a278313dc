import { DomainError, failedValidation, invalidPayload } from '../errors.ts';
import type { ScalarValue } from '../query/filter.ts';
import type { CollectionSchema } from '../schema/collection-schema.ts';
import { fieldOf } from '../schema/collection-schema.ts';
import { columnValue } from './column-value.ts';
import { isServerField } from './server-fields.ts';

/**
 * One item of a write body (docs/api.md §5), checked against the collection before any SQL: a plain JSON
 * object whose keys are all fields of the collection (else INVALID_PAYLOAD naming the key), each value
 * fitting its column (else FAILED_VALIDATION naming the field, see columnValue). Returns the canonical
 * values, keys in payload order.
 *
 * Fields the server sets (isServerField: the auto fields `date_created`, `user_created`, `date_updated`,
 * `user_updated`, and a file's facts) are dropped without a word: callers cannot set them, yet a client
 * echoing back an item it read must not fail for it.
 *
 * `mode` does not change the result: the primary key is kept in both modes. On update the row's key is
 * only known to the caller, who checks it with withoutUnchangedKey (unchanged-key.ts).
 *
 * The result is built with Object.fromEntries, which defines own properties: a key like `__proto__` is
 * refused as unknown, and even a column of that name could never set an object's prototype.
 */
export function parseItemPayload(
  raw: unknown,
  collection: CollectionSchema,
  _mode: 'create' | 'update',
): Record<string, ScalarValue | null> {
  if (!isPlainObject(raw)) throw invalidPayload('An item must be a JSON object.');
  const entries: Array<[string, ScalarValue | null]> = [];
  for (const key of Object.keys(raw)) {
    const field = fieldOf(collection, key);
    if (!field) throw unknownField(key, collection);
    if (isServerField(field, collection)) continue;
    entries.push([key, columnValue(field, raw[key])]);
  }
  return Object.fromEntries(entries);
}

/**
 * A write naming a field the collection does not have (docs/api.md §5): 400 naming it, the empty name too
 * (a CSV header's `label,,count`), which invalidPayload would leave unnamed.
 */
export function unknownField(name: string, collection: CollectionSchema): DomainError {
  return new DomainError('INVALID_PAYLOAD', `Unknown field "${name}" in collection "${collection.name}".`, {
    field: name,
  });
}

/**
 * A new item must name every column that has no value otherwise: not nullable and not filled by the
 * database (a uuid key without default counts, unless newPrimaryKey filled it). Check the item as it
 * will be inserted — generated key, presets, payload and auto fields merged — so only what is really
 * missing is refused.
 */
export function requireCreatableFields(
  item: Readonly<Record<string, ScalarValue | null>>,
  collection: CollectionSchema,
): void {
  for (const field of collection.fields) {
    if (field.nullable) continue;
    if (!Object.hasOwn(item, field.name)) {
      if (field.hasDefault) continue;
      throw failedValidation(field.name, `Field "${field.name}" is required.`);
    }
    // Only from a source that bypassed columnValue, e.g. an auto user field for the public caller.
    if (item[field.name] === null) {
      throw failedValidation(field.name, `Field "${field.name}" may not be null.`);
    }
  }
}

/** JSON.parse gives objects with Object.prototype; anything else (arrays, class instances) is not an item. */
function isPlainObject(raw: unknown): raw is Record<string, unknown> {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return false;
  const prototype: unknown = Object.getPrototypeOf(raw);
  return prototype === Object.prototype || prototype === null;
}
