import type { ItemKeysRequest, NestedRead, SelectedField } from '../../../application/ports/item-store.ts';
import { responseTooLarge } from '../../../domain/errors.ts';
import { canonicalJson } from '../../../domain/query/canonical-json.ts';
import { compareValues } from '../../../domain/query/compare-values.ts';
import { itemJson } from '../../../domain/query/value-json.ts';
import type { CollectionSchema, FieldSchema } from '../../../domain/schema/collection-schema.ts';
import { fieldOf } from '../../../domain/schema/collection-schema.ts';
import type { RelatedRows } from './in-memory-related-rows.ts';
import { sortRows } from './in-memory-row-order.ts';
import type { StoredRow } from './in-memory-schema.ts';
import { jsonbText, wireJson } from './in-memory-wire-json.ts';

/*
 * How the in-memory twin turns rows into the JSON text PostgreSQL would build, and measures it against
 * the byte budget the same way (UTF-8 bytes, the array's brackets and commas included), for the store's
 * reads and a transaction's read-back alike.
 */

export function rowJson(
  row: StoredRow,
  select: ReadonlyArray<SelectedField>,
  collection: CollectionSchema,
  related: RelatedRows,
): string {
  return itemJson(
    select.map((selected) => [
      selected.json?.key ?? selected.field,
      selectedJson(row, selected, collection, related),
    ]),
  );
}

function selectedJson(
  row: StoredRow,
  { field: name, visibleWhen, json, nested }: SelectedField,
  collection: CollectionSchema,
  related: RelatedRows,
): string {
  const shown = related.matches(visibleWhen, row, collection);
  // A relation is masked as its foreign-key column would be: null, not an empty array or object.
  if (nested) return shown ? nestedJson(row, nested, related) : 'null';
  const field = fieldOrThrow(collection, name);
  const value = shown ? (row[name] ?? null) : null;
  if (json) return value === null ? 'null' : valueAtPath(String(value), json.path);
  return wireJson(field, value);
}

/**
 * A relation expanded: the one related row the caller may see as an object, else null (many-to-one);
 * the visible related rows that pass `deep`'s filter, in its order then the primary key's, paged (one-to-many).
 */
function nestedJson(row: StoredRow, nested: NestedRead, related: RelatedRows): string {
  const { hop } = nested;
  const visible = related
    .of(hop, row)
    .filter((candidate) => related.matches(nested.visible, candidate, hop.collection));
  if (hop.direction === 'many-to-one') {
    const [target] = visible;
    return target ? rowJson(target, nested.select, hop.collection, related) : 'null';
  }
  const filtered = visible.filter((candidate) =>
    related.matches(nested.filter ?? null, candidate, hop.collection),
  );
  const offset = nested.offset ?? 0;
  const limit = nested.limit ?? null;
  const page = sortRows(filtered, nested.sort ?? [], hop.collection, related).slice(
    offset,
    limit === null ? undefined : offset + limit,
  );
  const key = nested.keysOnly ? primaryKeyOf(hop.collection) : null;
  const items = page.map((child) =>
    key ? wireJson(key, child[key.name] ?? null) : rowJson(child, nested.select, hop.collection, related),
  );
  // Compact, as the SQL store writes nested arrays (`[1,2]`): the same text as the page around them.
  return `[${items.join(',')}]`;
}

function primaryKeyOf(collection: CollectionSchema): FieldSchema {
  const key = collection.primaryKey === null ? undefined : fieldOf(collection, collection.primaryKey);
  if (!key) throw new Error(`ItemStore request asks for the keys of "${collection.name}", which has none`);
  return key;
}

/** PostgreSQL's int4: `#>` reads a larger index as no element. */
const MAX_INDEX = 2 ** 31 - 1;
const INDEX = /^\d+$/;

/**
 * The JSON text at `path` inside `text`, as PostgreSQL's `#>` finds and prints it: a segment is a key on
 * an object and, when it is digits, an index on an array; anything else, or nothing there, is null.
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
  // Re-canonicalized: JSON.parse put integer-like keys first, where jsonb orders keys by length.
  return jsonbText(canonicalJson(value) ?? JSON.stringify(value));
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
export function itemsWithKeys(
  rows: ReadonlyArray<StoredRow>,
  request: ItemKeysRequest,
  related: RelatedRows,
): string[] {
  const { collection } = request;
  const key = collection.primaryKey === null ? undefined : fieldOf(collection, collection.primaryKey);
  if (!key) return [];
  const items = request.keys.flatMap((wanted) => {
    const row = rows.find((candidate) => {
      const value = candidate[key.name] ?? null;
      return value !== null && compareValues(key.type, value, wanted) === 0;
    });
    return row && related.matches(request.visible, row, collection)
      ? [rowJson(row, request.select, collection, related)]
      : [];
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
