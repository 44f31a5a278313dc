import type { ItemKeysRequest, SelectedField } from '../../../application/ports/item-store.ts';
import { responseTooLarge } from '../../../domain/errors.ts';
import { compareValues } from '../../../domain/query/compare-values.ts';
import { matchesFilter } from '../../../domain/query/evaluate-filter.ts';
import type { BoundFilterNode } from '../../../domain/query/filter.ts';
import { itemJson, valueJson } from '../../../domain/query/value-json.ts';
import type { CollectionSchema, FieldSchema } from '../../../domain/schema/collection-schema.ts';
import { fieldOf } from '../../../domain/schema/collection-schema.ts';
import type { StoredRow } from './in-memory-schema.ts';

/*
 * How the in-memory twin turns rows into the JSON text PostgreSQL would build, and measures it against
 * the byte budget the same way (UTF-8 bytes, the array's brackets and commas included), for the store's
 * reads and a transaction's read-back alike.
 */

export function matches(node: BoundFilterNode | null, row: StoredRow, collection: CollectionSchema): boolean {
  return node === null || matchesFilter(node, row, collection);
}

export function rowJson(
  row: StoredRow,
  select: ReadonlyArray<SelectedField>,
  collection: CollectionSchema,
): string {
  return itemJson(
    select.map(({ field: name, visibleWhen, json }) => {
      const field = fieldOrThrow(collection, name);
      const shown = visibleWhen === null || matchesFilter(visibleWhen, row, collection);
      const value = shown ? (row[name] ?? null) : null;
      if (json) return [json.key, value === null ? 'null' : valueAtPath(String(value), json.path)] as const;
      return [name, valueJson(field, value)] as const;
    }),
  );
}

/** PostgreSQL's int4: `#>` reads a larger index as no element. */
const MAX_INDEX = 2 ** 31 - 1;
const INDEX = /^\d+$/;

/**
 * The JSON text at `path` inside `text`, as PostgreSQL's `#>` finds it: a segment is a key on an
 * object and, when it is digits, an index on an array; anything else, or nothing there, is null.
 */
function valueAtPath(text: string, path: ReadonlyArray<string>): string {
  let value: unknown = JSON.parse(text);
  for (const segment of path) {
    if (Array.isArray(value)) {
      const index = INDEX.test(segment) ? Number(segment) : Number.NaN;
      value = index <= MAX_INDEX ? value[index] : undefined;
    } else if (typeof value === 'object' && value !== null && Object.hasOwn(value, segment)) {
      value = (value as Record<string, unknown>)[segment];
    } else value = undefined;
    if (value === undefined) return 'null';
  }
  return JSON.stringify(value);
}

/** Refuses JSON text of `bytes` over `maxBytes`, if there is a budget, with RESPONSE_TOO_LARGE. */
export function assertWithinBudget(bytes: number, maxBytes: number | undefined): void {
  if (maxBytes !== undefined && bytes > maxBytes) throw responseTooLarge(bytes, maxBytes);
}

/** The size of the JSON array of `items`: `[`, `]` and the commas between them. */
export function arrayBytes(items: ReadonlyArray<string>): number {
  return items.reduce((sum, item) => sum + Buffer.byteLength(item), 2 + Math.max(items.length - 1, 0));
}

/**
 * ItemStore.getMany over these rows: the visible ones with the wanted keys, in the order of the keys,
 * within the budget (counted as their JSON array).
 */
export function itemsWithKeys(rows: ReadonlyArray<StoredRow>, request: ItemKeysRequest): string[] {
  const { collection } = request;
  const key = collection.primaryKey === null ? undefined : fieldOf(collection, collection.primaryKey);
  if (!key) return [];
  const items = request.keys.flatMap((wanted) => {
    const row = rows.find((candidate) => {
      const value = candidate[key.name] ?? null;
      return value !== null && compareValues(key.type, value, wanted) === 0;
    });
    return row && matches(request.visible, row, collection) ? [rowJson(row, request.select, collection)] : [];
  });
  assertWithinBudget(arrayBytes(items), request.maxBytes);
  return items;
}

export function fieldOrThrow(collection: CollectionSchema, name: string): FieldSchema {
  const field = fieldOf(collection, name);
  if (!field)
    throw new Error(`ItemStore request names a field "${name}" that "${collection.name}" does not have`);
  return field;
}
