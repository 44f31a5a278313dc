import type { Accountability } from '../../domain/accountability.ts';
import type { ReadRule } from '../../domain/permissions/read-rule.ts';
import { assertFilterQueryable, assertKeyQueryable } from '../../domain/permissions/readable-fields.ts';
import { bindDynamicValues } from '../../domain/query/bind-dynamic-values.ts';
import { allOf } from '../../domain/query/combine-filters.ts';
import type { BoundFilterNode, ScalarValue } from '../../domain/query/filter.ts';
import { parseFilter } from '../../domain/query/parse-filter.ts';
import type { CollectionSchema, FieldSchema } from '../../domain/schema/collection-schema.ts';
import type { ItemWriter, StoredItem } from '../ports/item-store.ts';
import { requireBatchSize } from './batch-size.ts';
import { parseFlatAsCaller } from './parse-as-caller.ts';

/**
 * The rows with these keys that the caller may read, locked, keyed by `String(key)`. A key without such
 * a row is absent: writes answer 404 for rows they could not GET. The read rule is part of the locking
 * statement, so each target row is locked once and its visibility is not checked again here. Naming rows
 * by key filters on the key, so it needs the key queryable, as GET by key does (assertKeyQueryable).
 */
export async function lockVisibleRows(
  caller: Accountability,
  writer: ItemWriter,
  collection: CollectionSchema,
  keyField: FieldSchema,
  rule: ReadRule,
  keys: ReadonlyArray<ScalarValue>,
): Promise<Map<string, StoredItem>> {
  assertKeyQueryable(caller, rule, collection);
  if (keys.length === 0) return new Map();
  const wanted: BoundFilterNode = { kind: 'condition', field: keyField.name, operator: '_in', values: keys };
  return byKey(await writer.lockMatching(collection, visibleOnly(wanted, rule)), keyField);
}

/**
 * The rows a `{ query: { filter } }` write targets, locked: those matching the filter among the rows the
 * caller may read, at most `batchMax` of them, with their keys in the order found. Filtering on a field
 * the caller may not read is refused, as for GET.
 */
export async function lockVisibleMatching(
  caller: Accountability,
  collection: CollectionSchema,
  keyField: FieldSchema,
  rule: ReadRule,
  writer: ItemWriter,
  rawFilter: unknown,
  now: Date,
  batchMax: number,
): Promise<{ keys: ScalarValue[]; rows: Map<string, StoredItem> }> {
  const filter = parseFlatAsCaller(caller, collection, rule, () => parseFilter(rawFilter, collection));
  assertFilterQueryable(caller, rule, filter);
  const bound = bindDynamicValues(filter, { user: caller.user, role: caller.role, now }, collection);
  // One row past the batch is enough to refuse it: a filter matching the whole table locks no more.
  const rows = await writer.lockMatching(collection, visibleOnly(bound, rule), batchMax + 1);
  requireBatchSize(rows.length, batchMax);
  return { keys: rows.map((row) => row[keyField.name] as ScalarValue), rows: byKey(rows, keyField) };
}

/** Locked rows keyed by `String(key)`. */
function byKey(rows: ReadonlyArray<StoredItem>, keyField: FieldSchema): Map<string, StoredItem> {
  return new Map(rows.map((row) => [String(row[keyField.name]), row]));
}

function visibleOnly(filter: BoundFilterNode, rule: ReadRule): BoundFilterNode {
  return rule.rows ? allOf([filter, rule.rows]) : filter;
}
