import type { Accountability } from '../../domain/accountability.ts';
import type { DomainError } from '../../domain/errors.ts';
import type { CanonicalItem } from '../../domain/items/canonical-item.ts';
import { UniqueClash } from '../../domain/items/unique-clash.ts';
import type { ReadRule } from '../../domain/permissions/read-rule.ts';
import { refusal } from '../../domain/permissions/refusal.ts';
import { allOf, anyOf } from '../../domain/query/combine-filters.ts';
import { matchesFilter } from '../../domain/query/evaluate-filter.ts';
import type { BoundFilterNode, ScalarValue } from '../../domain/query/filter.ts';
import type { CollectionSchema } from '../../domain/schema/collection-schema.ts';
import type { ItemStore, StoredItem } from '../ports/item-store.ts';

/** What a refused write needs to judge a unique clash: whose it is, and the rows as they were to be written. */
export type ClashContext = {
  readonly caller: Accountability;
  readonly collection: CollectionSchema;
  /** The caller's read rule; null when they may read nothing of the collection. */
  readonly rule: ReadRule | null;
  /** Each row as it would have been stored, as far as known (a column only the database fills is absent). */
  readonly written: ReadonlyArray<CanonicalItem>;
};

/**
 * Runs a write; a unique clash it meets is answered as the caller may hear it (answerClash). Anything
 * else passes unchanged.
 */
export async function withClashAnswered<T>(
  items: ItemStore,
  write: () => Promise<T>,
  context: () => Promise<ClashContext> | ClashContext,
): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (error instanceof UniqueClash) throw await answerClash(items, error, await context());
    throw error;
  }
}

/**
 * A unique index refused a write. The clash may be with a row the caller cannot read, and RECORD_NOT_UNIQUE
 * would then tell them that row exists and what it holds (docs/api.md §5). So it is answered only when
 * the request explains it by itself — two of its own rows clash — or a row the caller may read, with every
 * column of the index readable on it, holds the same values; otherwise the answer is the caller's refusal
 * naming the field, byte for byte what a field outside their permission gets. Which of the two is never
 * decided by a row the caller cannot read. Admins read everything and get the clash as it is.
 *
 * The rows are looked up after the failed transaction has ended, in a short one of their own: a row
 * changed in between can at worst turn a readable clash into the refusal, never the other way round.
 */
export async function answerClash(
  items: ItemStore,
  clash: UniqueClash,
  { caller, collection, rule, written }: ClashContext,
): Promise<DomainError> {
  if (caller.admin) return clash;
  const hidden = refusal(caller, clash.extensions.field);
  const { columns } = clash;
  if (columns.length === 0) return hidden;
  const tuples = written.flatMap((row) => {
    const values = columns.map((column) => row[column]);
    return values.every((value) => value !== null && value !== undefined) ? [values as ScalarValue[]] : [];
  });
  if (new Set(tuples.map((values) => JSON.stringify(values))).size < tuples.length) return clash;
  if (rule === null || tuples.length === 0) return hidden;
  const sameValues = anyOf(
    tuples.map((values) =>
      allOf<ScalarValue>(
        columns.map(
          (field, index): BoundFilterNode => ({
            kind: 'condition',
            field,
            operator: '_eq',
            value: values[index]!,
          }),
        ),
      ),
    ),
  );
  const filter = rule.rows === null ? sameValues : allOf([sameValues, rule.rows]);
  const holders = await items.write((writer) => writer.lockMatching(collection, filter));
  return holders.some((row) => readableOn(row, columns, rule, collection)) ? clash : hidden;
}

function readableOn(
  row: StoredItem,
  columns: ReadonlyArray<string>,
  rule: ReadRule,
  collection: CollectionSchema,
): boolean {
  return columns.every((column) => {
    if (!rule.fields.has(column)) return false;
    const condition = rule.fields.get(column) ?? null;
    return condition === null || matchesFilter(condition, row, collection);
  });
}
