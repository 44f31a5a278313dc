import type { ItemValues } from '../../../application/ports/item-store.ts';
import type { DomainError } from '../../../domain/errors.ts';
import type { ScalarValue } from '../../../domain/query/filter.ts';
import type { CollectionSchema, SchemaSnapshot } from '../../../domain/schema/collection-schema.ts';
import { fieldOf } from '../../../domain/schema/collection-schema.ts';
import type { Relation } from '../../../domain/schema/relation.ts';
import { missingReference, notNullViolation, stillReferenced } from '../postgres/write-refusals.ts';
import { keyText, RelatedRows } from './in-memory-related-rows.ts';
import type { StoredRow } from './in-memory-schema.ts';

/** What the failing statement was doing, as PostgreSQL's error translation learns it (database-errors.ts). */
export type WriteStatement = {
  readonly statement: 'insert' | 'update' | 'delete';
  readonly collection: string;
  /** The rows inserted, or the one set of values of an update; none for a delete. */
  readonly values: ReadonlyArray<ItemValues>;
};

/** A row a statement changed: `before` null when it inserted it, `after` null when it deleted it. */
export type RowChange = { readonly before: StoredRow | null; readonly after: StoredRow | null };

/** The tables of one transaction, as the foreign keys' actions read and rewrite them. */
export interface ForeignKeyTables {
  schemaOf(collection: string): CollectionSchema;
  rowsOf(collection: string): ReadonlyArray<StoredRow>;
  /** Replaces the rows of `collection` (rows are never changed in place). */
  replace(collection: string, rows: StoredRow[]): void;
  /** The column's default as a new row would take it; null when it has none. */
  defaultOf(collection: string, field: string): ScalarValue | null;
  /** Refuses rows that break the collection's unique columns, as the statement itself would. */
  assertUnique(collection: string, rows: ReadonlyArray<StoredRow>): void;
}

/**
 * The foreign keys of `relations` after a statement changed `changes` rows of `collection`, as PostgreSQL
 * enforces them when the statement ends: first the referential actions on the rows referring to removed
 * or re-keyed ones (`cascade` deletes or re-keys them, `set null`/`set default` rewrite their column —
 * each in turn a change whose own actions follow), then the checks: a removed or changed value still
 * referred to (`no action`, `restrict`) and a row pointing nowhere are refused with the error PostgreSQL's
 * 23503 is translated to (database-errors.ts). `restrict` is checked as `no action` is, at the end of
 * the statement, which only differs when one statement moves a referred value to another row.
 */
export function enforceForeignKeys(
  relations: ReadonlyArray<Relation>,
  tables: ForeignKeyTables,
  statement: WriteStatement,
  changes: ReadonlyArray<RowChange>,
): void {
  const removed: Array<{ relation: Relation; value: ScalarValue }> = [];
  const pointing: Array<{ relation: Relation; row: StoredRow }> = [];
  const queue = [{ collection: statement.collection, changes }];
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    const { collection, changes: changed } = next;
    for (const relation of relations) {
      if (relation.relatedCollection === collection) {
        const rekeyed = rekeyedRows(relation, tables, changed);
        // Checked whatever the action: `set default` may point the referrers back at the removed value.
        for (const change of rekeyed.values()) {
          removed.push({ relation, value: change.before![relation.relatedField]! });
        }
        const consequences = act(relation, tables, rekeyed);
        if (consequences.length > 0) queue.push({ collection: relation.collection, changes: consequences });
      }
      if (relation.collection === collection) {
        for (const { before, after } of changed) {
          const value = after?.[relation.field] ?? null;
          if (value !== null && (before === null || before[relation.field] !== value)) {
            pointing.push({ relation, row: after! });
          }
        }
      }
    }
  }
  const related = new RelatedRows((name) => tables.rowsOf(name));
  const holds = (collection: string, field: string, value: ScalarValue) =>
    related.withValue(tables.schemaOf(collection), field, value).length > 0;
  for (const { relation, value } of removed) {
    if (
      !holds(relation.relatedCollection, relation.relatedField, value) &&
      holds(relation.collection, relation.field, value)
    ) {
      throw violation(relation, statement);
    }
  }
  for (const { relation, row } of pointing) {
    if (!holds(relation.relatedCollection, relation.relatedField, row[relation.field]!)) {
      throw violation(relation, statement);
    }
  }
}

/**
 * The foreign key of `rows` (new rows of `collection`) that points nowhere, if one does, against the rows
 * `rowsOf` finds: for rows added outside a transaction (seeding).
 */
export function danglingReference(
  snapshot: SchemaSnapshot,
  collection: string,
  rows: ReadonlyArray<StoredRow>,
  rowsOf: (collection: string) => ReadonlyArray<StoredRow>,
): Relation | undefined {
  const related = new RelatedRows(rowsOf);
  return snapshot.relations.find((relation) => {
    const referred = snapshot.collections.get(relation.relatedCollection);
    if (relation.collection !== collection || !referred) return false;
    return rows.some((row) => {
      const value = row[relation.field] ?? null;
      return value !== null && related.withValue(referred, relation.relatedField, value).length === 0;
    });
  });
}

/** The changes that removed a referred value of `relation` or changed it, by that old value. */
function rekeyedRows(
  relation: Relation,
  tables: ForeignKeyTables,
  changes: ReadonlyArray<RowChange>,
): Map<string, RowChange> {
  const type = fieldOf(tables.schemaOf(relation.relatedCollection), relation.relatedField)?.type ?? 'unknown';
  const rekeyed = new Map<string, RowChange>();
  for (const change of changes) {
    const old = change.before?.[relation.relatedField] ?? null;
    if (old === null) continue;
    const now = change.after?.[relation.relatedField] ?? null;
    if (now === null || keyText(type, now) !== keyText(type, old)) rekeyed.set(keyText(type, old), change);
  }
  return rekeyed;
}

function actionOn(relation: Relation, change: RowChange) {
  return change.after === null ? relation.onDelete : relation.onUpdate;
}

/** `no action` and `restrict` leave the referring rows alone, to be refused at the end of the statement. */
function acts(action: Relation['onDelete']): boolean {
  return action !== 'no action' && action !== 'restrict';
}

/** Applies the relation's actions to the rows referring to `rekeyed` ones; returns what they changed. */
function act(
  relation: Relation,
  tables: ForeignKeyTables,
  rekeyed: ReadonlyMap<string, RowChange>,
): RowChange[] {
  if (![...rekeyed.values()].some((change) => acts(actionOn(relation, change)))) return [];
  const schema = tables.schemaOf(relation.collection);
  const field = fieldOf(schema, relation.field);
  if (!field) return [];
  const consequences: RowChange[] = [];
  const rows = tables.rowsOf(relation.collection).flatMap((row) => {
    const value = row[field.name] ?? null;
    const change = value === null ? undefined : rekeyed.get(keyText(field.type, value));
    if (!change) return [row];
    const action = actionOn(relation, change);
    if (!acts(action)) return [row];
    if (action === 'cascade' && change.after === null) {
      consequences.push({ before: row, after: null });
      return [];
    }
    const written =
      action === 'cascade'
        ? (change.after?.[relation.relatedField] ?? null)
        : action === 'set default'
          ? tables.defaultOf(relation.collection, field.name)
          : null;
    if (written === null && !field.nullable) throw notNullViolation(field.name);
    const after: StoredRow = Object.assign(Object.create(null), row, { [field.name]: written });
    consequences.push({ before: row, after });
    return [after];
  });
  if (consequences.length > 0) {
    if (consequences.some((change) => change.after !== null)) tables.assertUnique(relation.collection, rows);
    tables.replace(relation.collection, rows);
  }
  return consequences;
}

/**
 * As PostgreSQL's 23503 is translated: the written item's own reference points nowhere when the
 * constraint is on the written collection and the statement wrote its column; otherwise rows still
 * refer to a removed or re-keyed one.
 */
function violation(relation: Relation, statement: WriteStatement): DomainError {
  const written =
    statement.statement !== 'delete' &&
    relation.collection === statement.collection &&
    statement.values.some((row) => Object.hasOwn(row, relation.field));
  if (written) return missingReference(relation.field);
  return stillReferenced({
    collection: relation.collection,
    columns: [relation.field],
    referenced: { collection: relation.relatedCollection, columns: [relation.relatedField] },
  });
}
