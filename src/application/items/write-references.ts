import type { Accountability } from '../../domain/accountability.ts';
import { DomainError } from '../../domain/errors.ts';
import { StillReferenced } from '../../domain/items/still-referenced.ts';
import { refusal } from '../../domain/permissions/refusal.ts';
import { coerceValue } from '../../domain/query/coerce-value.ts';
import { allOf, anyOf } from '../../domain/query/combine-filters.ts';
import type { BoundFilterNode } from '../../domain/query/filter.ts';
import { type CollectionSchema, fieldOf, isSystemCollection } from '../../domain/schema/collection-schema.ts';
import type { ItemListRequest, ItemStore, StoredItem } from '../ports/item-store.ts';
import type { SchemaCatalog } from '../ports/schema-catalog.ts';
import type { ReadRules } from './read-rules.ts';

/** What a refused delete or update needs to judge "still referenced": whose it is and which rows it changed. */
export type ReferenceContext = {
  readonly caller: Accountability;
  readonly collection: CollectionSchema;
  /** The rows deleted or changed, as they were before the write. */
  readonly targets: ReadonlyArray<StoredItem>;
  readonly now: Date;
};

/**
 * Runs a write; "other items still refer to this item" is answered as the caller may hear it
 * (answerStillReferenced). Anything else passes unchanged.
 */
export async function withReferencesAnswered<T>(
  deps: { items: ItemStore; catalog: SchemaCatalog; readRules: ReadRules },
  write: () => Promise<T>,
  context: () => ReferenceContext,
): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (error instanceof StillReferenced) throw await answerStillReferenced(deps, error, context());
    throw error;
  }
}

/**
 * A foreign key refused to let the rows go (or change the values referred to). Saying so tells the caller
 * that referring rows exist; when they cannot read every one of them, that is a row they cannot read
 * revealed (docs/api.md §5). So the 400 is kept only when every row that refers to the targets is one the
 * caller may read; otherwise the answer is the caller's refusal, as for a row outside their permission.
 * Referring rows of a table that is no collection of the API count as unreadable. Admins get the 400.
 */
export async function answerStillReferenced(
  { items, catalog, readRules }: { items: ItemStore; catalog: SchemaCatalog; readRules: ReadRules },
  error: StillReferenced,
  { caller, collection, targets, now }: ReferenceContext,
): Promise<DomainError> {
  if (caller.admin) return error;
  const hidden = refusal(caller);
  const { referrers } = error;
  if (referrers === null || referrers.referenced.collection !== collection.name) return hidden;
  const referring = isSystemCollection(referrers.collection)
    ? undefined
    : catalog.current().collections.get(referrers.collection);
  if (!referring) return hidden;
  const pointsAtTargets = referringFilter(
    referring,
    referrers.columns,
    referrers.referenced.columns,
    targets,
  );
  if (pointsAtTargets === null) return hidden;
  const rule = await readRules.optional(caller, referring, now);
  if (rule === null) return hidden;
  const count = async (visible: BoundFilterNode | null) =>
    (await items.list(countOnly(referring, visible, pointsAtTargets))).filterCount ?? 0;
  const all = await count(null);
  const readable = rule.rows === null ? all : await count(rule.rows);
  return all > 0 && readable === all ? error : hidden;
}

/**
 * Rows whose referring columns hold a target's referenced values, each coerced to the referring column's
 * type (an int4 key referred to by an int8 column is a digit string there); null when a value cannot be.
 */
function referringFilter(
  referring: CollectionSchema,
  columns: ReadonlyArray<string>,
  referencedColumns: ReadonlyArray<string>,
  targets: ReadonlyArray<StoredItem>,
): BoundFilterNode | null {
  const perTarget: BoundFilterNode[] = [];
  for (const target of targets) {
    const conditions: BoundFilterNode[] = [];
    for (const [index, column] of columns.entries()) {
      const field = fieldOf(referring, column);
      const value = target[referencedColumns[index]!];
      if (!field || field.type === 'unknown') return null;
      // A null referenced value is referred to by no row: this target cannot be one of those refused.
      if (value === null || value === undefined) break;
      try {
        conditions.push({
          kind: 'condition',
          field: column,
          operator: '_eq',
          value: coerceValue(field, value),
        });
      } catch (failure) {
        if (failure instanceof DomainError) return null;
        throw failure;
      }
    }
    if (conditions.length === columns.length) perTarget.push(allOf(conditions));
  }
  return perTarget.length === 0 ? null : anyOf(perTarget);
}

function countOnly(
  collection: CollectionSchema,
  visible: BoundFilterNode | null,
  filter: BoundFilterNode,
): ItemListRequest {
  return {
    collection,
    select: [],
    visible,
    filter,
    sort: [],
    limit: 0,
    offset: 0,
    count: { total: false, filtered: true },
  };
}
