import {
  type ItemKeysRequest,
  type ItemValues,
  type ItemWriter,
  StaleSchemaError,
  type StoredItem,
} from '../../../application/ports/item-store.ts';
import type { Accountability } from '../../../domain/accountability.ts';
import { characterCount } from '../../../domain/character-count.ts';
import { DomainError } from '../../../domain/errors.ts';
import { canonicalJson } from '../../../domain/query/canonical-json.ts';
import { coerceValue } from '../../../domain/query/coerce-value.ts';
import { compareValues } from '../../../domain/query/compare-values.ts';
import type { BoundFilterNode, ScalarValue } from '../../../domain/query/filter.ts';
import type { CollectionSchema, FieldSchema } from '../../../domain/schema/collection-schema.ts';
import { accountabilityOf, fieldOf } from '../../../domain/schema/collection-schema.ts';
import {
  invalidFieldValue,
  notNullViolation,
  notWritable,
  uniqueViolation,
  valueTooLong,
} from '../postgres/write-refusals.ts';
import type { InMemoryActivityLog, WrittenItem } from './in-memory-activity-log.ts';
import {
  enforceForeignKeys,
  type ForeignKeyTables,
  type RowChange,
  type WriteStatement,
} from './in-memory-foreign-keys.ts';
import type { InMemoryItemEventLog, RecordedItemEvent } from './in-memory-item-event-log.ts';
import { itemsWithKeys } from './in-memory-item-json.ts';
import { RelatedRows } from './in-memory-related-rows.ts';
import type { InMemorySchema, MemoryTable, StoredRow } from './in-memory-schema.ts';
import { wireJson } from './in-memory-wire-json.ts';

/** A table as one transaction sees it: a private copy of the row list, made when first touched. */
type WorkingTable = {
  readonly live: MemoryTable;
  /** The shape the copy was taken with: a schema change before commit makes the copy stale. */
  readonly schema: CollectionSchema;
  rows: StoredRow[];
  readonly identity: { next: number };
};

/**
 * ItemWriter of one in-memory transaction. Writes go to copies of the touched tables (rows are never
 * changed in place: an update replaces the row object, so the live table keeps its own); `commit`
 * publishes every copy at once, and a transaction that throws is simply dropped. Each statement checks
 * what PostgreSQL would — not-null, varchar length, unique columns, the primary key and foreign keys
 * with their referential actions (in-memory-foreign-keys.ts) — with the same refusals as translated
 * database errors (write-refusals.ts). Serializing the transactions, which stands in for row locks, is
 * InMemoryItemStore's job.
 *
 * Like PostgreSQL against a stale snapshot, a collection or field the live schema no longer has is a
 * StaleSchemaError, and so is a schema change between a table's first touch and the commit.
 */
export class InMemoryItemWriter implements ItemWriter {
  private readonly working = new Map<string, WorkingTable>();
  /** Tables this transaction only read, with the shape it read them in: stale alike if it changes before commit. */
  private readonly read = new Map<
    string,
    { readonly live: MemoryTable; readonly schema: CollectionSchema }
  >();
  /** Like a PostgreSQL transaction after an error, a failed statement leaves nothing to commit. */
  private failure: { error: unknown } | undefined;
  /** The changes this transaction made, logged when (and only if) it commits. */
  private readonly recorded: RecordedItemEvent[] = [];
  /** The activity and revisions of its writes, recorded when (and only if) it commits. */
  private readonly audited: WrittenItem[] = [];

  /**
   * `events`: the change log to append to at commit; absent, nothing is recorded. `activity`: where the
   * writes' activity goes at commit, on whose behalf; absent, none.
   */
  constructor(
    private readonly schema: InMemorySchema,
    private readonly events?: InMemoryItemEventLog,
    private readonly activity?: { readonly log: InMemoryActivityLog; readonly author?: Accountability },
  ) {}

  async insert(collection: CollectionSchema, rows: ReadonlyArray<ItemValues>): Promise<ScalarValue[]> {
    return this.statement(() => this.insertRows(collection, rows));
  }

  /** In memory a statement costs nothing to prepare: the same as `insert`. */
  async insertBulk(collection: CollectionSchema, rows: ReadonlyArray<ItemValues>): Promise<ScalarValue[]> {
    return this.insert(collection, rows);
  }

  async lockRows(
    collection: CollectionSchema,
    keys: ReadonlyArray<ScalarValue>,
  ): Promise<Map<string, StoredItem>> {
    return this.statement(() => this.rowsWithKeys(collection, keys));
  }

  async lockMatching(
    collection: CollectionSchema,
    filter: BoundFilterNode | null,
    limit?: number,
  ): Promise<StoredItem[]> {
    return this.statement(() => this.rowsMatching(collection, filter).slice(0, limit));
  }

  async update(
    collection: CollectionSchema,
    keys: ReadonlyArray<ScalarValue>,
    values: ItemValues,
  ): Promise<void> {
    this.statement(() => this.updateRows(collection, keys, values));
  }

  async delete(collection: CollectionSchema, keys: ReadonlyArray<ScalarValue>): Promise<void> {
    this.statement(() => this.deleteRows(collection, keys));
  }

  /** InMemoryItemStore.getMany over this transaction's copies: it sees the rows written so far. */
  async getMany(request: ItemKeysRequest): Promise<string[]> {
    const rows = this.statement(() => this.touch(request.collection).rows);
    return itemsWithKeys(rows, request, new RelatedRows((name) => this.seen(name).rows));
  }

  private insertRows(collection: CollectionSchema, rows: ReadonlyArray<ItemValues>): ScalarValue[] {
    const table = this.touch(collection);
    const added = rows.map((row) =>
      completeRow(table.schema, table.live.defaults, writtenValues(table.schema, row), table.identity),
    );
    assertUnique(table.schema, [...table.rows, ...added]);
    table.rows.push(...added);
    const created = added.map((after) => ({ before: null, after }));
    this.record(table.schema, 'create', created);
    this.audit(table.schema, 'create', created, null);
    this.enforceForeignKeys({ statement: 'insert', collection: table.schema.name, values: rows }, created);
    const key = table.schema.primaryKey;
    return key === null ? [] : added.map((row) => row[key]!);
  }

  private rowsWithKeys(
    collection: CollectionSchema,
    keys: ReadonlyArray<ScalarValue>,
  ): Map<string, StoredItem> {
    const table = this.touch(collection);
    const key = primaryKeyOf(table.schema);
    const wanted = new Set(keys.map(String));
    const found = new Map<string, StoredItem>();
    for (const row of table.rows) {
      const value = row[key.name];
      if (value !== null && value !== undefined && wanted.has(String(value))) {
        found.set(String(value), modelled(table.schema, row));
      }
    }
    return found;
  }

  private rowsMatching(collection: CollectionSchema, filter: BoundFilterNode | null): StoredItem[] {
    const table = this.touch(collection);
    const related = new RelatedRows((name) => this.seen(name).rows);
    const matching = table.rows.filter((row) => related.matches(filter, row, table.schema));
    const key = table.schema.primaryKey === null ? null : primaryKeyOf(table.schema);
    if (key) matching.sort((a, b) => compareValues(key.type, a[key.name]!, b[key.name]!));
    return matching.map((row) => modelled(table.schema, row));
  }

  private updateRows(
    collection: CollectionSchema,
    keys: ReadonlyArray<ScalarValue>,
    values: ItemValues,
  ): void {
    const table = this.touch(collection);
    const key = primaryKeyOf(table.schema);
    const changes = writtenValues(table.schema, values);
    for (const [name, value] of Object.entries(changes)) {
      if (value === null && !fieldOf(table.schema, name)!.nullable) throw notNullViolation(name);
    }
    const targets = new Set(keys.map(String));
    const changed: RowChange[] = [];
    const rows = table.rows.map((row) => {
      if (!targets.has(String(row[key.name]))) return row;
      const after: StoredRow = Object.assign(Object.create(null), row, changes);
      changed.push({ before: row, after });
      return after;
    });
    assertUnique(table.schema, rows);
    table.rows = rows;
    this.record(table.schema, 'update', changed);
    this.audit(table.schema, 'update', changed, Object.keys(values));
    this.enforceForeignKeys(
      { statement: 'update', collection: table.schema.name, values: [values] },
      changed,
    );
  }

  private deleteRows(collection: CollectionSchema, keys: ReadonlyArray<ScalarValue>): void {
    const table = this.touch(collection);
    const key = primaryKeyOf(table.schema);
    const targets = new Set(keys.map(String));
    const removed: RowChange[] = [];
    table.rows = table.rows.filter((row) => {
      const kept = !targets.has(String(row[key.name]));
      if (!kept) removed.push({ before: row, after: null });
      return kept;
    });
    this.record(table.schema, 'delete', removed);
    this.audit(table.schema, 'delete', removed, null);
    this.enforceForeignKeys({ statement: 'delete', collection: table.schema.name, values: [] }, removed);
  }

  /**
   * Remembers the statement's changes as events, with canonical images of the modelled columns. Rows
   * changed by referential actions are not events, as on PostgreSQL (docs/api.md §12).
   */
  private record(
    schema: CollectionSchema,
    action: RecordedItemEvent['action'],
    changes: ReadonlyArray<RowChange>,
  ): void {
    const key = schema.primaryKey;
    if (!this.events || key === null) return;
    for (const { before, after } of changes) {
      this.recorded.push({
        collection: schema.name,
        action,
        key: (after ?? before)![key]!,
        before: before && modelled(schema, before),
        after: after && modelled(schema, after),
      });
    }
  }

  /**
   * Remembers the statement's activity as the SQL writer records it (activity-recording.ts): one entry per
   * row; for creates and updates under `all`, a revision with the wire image after and the written fields.
   */
  private audit(
    schema: CollectionSchema,
    action: WrittenItem['action'],
    changes: ReadonlyArray<RowChange>,
    written: ReadonlyArray<string> | null,
  ): void {
    const mode = accountabilityOf(schema);
    const key = schema.primaryKey;
    if (!this.activity || mode === null || key === null) return;
    for (const { before, after } of changes) {
      const item = String((after ?? before)![key]);
      if (mode !== 'all' || after === null) {
        this.audited.push({ collection: schema.name, action, item });
        continue;
      }
      const data = wireImage(schema, after);
      const delta = written === null ? data : Object.fromEntries(written.map((name) => [name, data[name]]));
      this.audited.push({ collection: schema.name, action, item, revision: { data, delta } });
    }
  }

  private enforceForeignKeys(statement: WriteStatement, changes: ReadonlyArray<RowChange>): void {
    const { relations } = this.schema.current();
    if (relations.length === 0 || changes.length === 0) return;
    const tables: ForeignKeyTables = {
      schemaOf: (name) => this.seen(name).schema,
      rowsOf: (name) => this.seen(name).rows,
      replace: (name, rows) => {
        this.touchNamed(name).rows = rows;
      },
      defaultOf: (name, field) => this.touchNamed(name).live.defaults.get(field) ?? null,
      assertUnique: (name, rows) => assertUnique(this.touchNamed(name).schema, rows),
    };
    enforceForeignKeys(relations, tables, statement, changes);
  }

  /**
   * Publishes the copies, all of them synchronously, so readers never see half a transaction. Checks
   * every table before changing any.
   */
  commit(): void {
    if (this.failure) throw this.failure.error;
    for (const [name, table] of [...this.working, ...this.read]) {
      if (this.schema.table(name) !== table.live || table.live.schema !== table.schema) {
        throw new StaleSchemaError();
      }
    }
    for (const table of this.working.values()) {
      // The live list is replaced in content, not identity: MemoryTable owns it.
      table.live.rows.length = 0;
      for (const row of table.rows) table.live.rows.push(row);
      table.live.nextIdentity = table.identity.next;
    }
    this.events?.append(this.recorded);
    this.activity?.log.appendWrites(this.activity.author, this.audited);
  }

  /** Runs one statement; after a failed one, every later statement (and the commit) fails with it. */
  private statement<T>(run: () => T): T {
    if (this.failure) throw this.failure.error;
    try {
      return run();
    } catch (error) {
      this.failure = { error };
      throw error;
    }
  }

  /**
   * A table's rows and shape as this transaction sees them: its copy once written, else the live table,
   * not copied for a read (foreign-key checks and relational filters read whole related tables).
   */
  private seen(name: string): { readonly rows: ReadonlyArray<StoredRow>; readonly schema: CollectionSchema } {
    const working = this.working.get(name);
    if (working) return working;
    let read = this.read.get(name);
    if (!read) {
      const live = this.schema.table(name);
      if (!live) throw new StaleSchemaError();
      read = { live, schema: live.schema };
      this.read.set(name, read);
    }
    return { rows: read.live.rows, schema: read.schema };
  }

  private touch(collection: CollectionSchema): WorkingTable {
    return this.touchNamed(collection.name);
  }

  private touchNamed(name: string): WorkingTable {
    const existing = this.working.get(name);
    if (existing) return existing;
    const live = this.schema.table(name);
    if (!live) throw new StaleSchemaError();
    const table = {
      live,
      schema: live.schema,
      rows: [...live.rows],
      identity: { next: live.nextIdentity },
    };
    this.working.set(name, table);
    return table;
  }
}

/**
 * A new row: the given value, else the column's default, else the next identity number, else null —
 * refused where the column takes no null. An explicit identity value moves the counter past it (PostgreSQL's
 * sequence would not move, and collide later; the twin is kinder there).
 */
export function completeRow(
  schema: CollectionSchema,
  defaults: ReadonlyMap<string, ScalarValue>,
  given: Readonly<Record<string, ScalarValue | null>>,
  identity: { next: number },
): StoredRow {
  const row: StoredRow = Object.create(null);
  for (const field of schema.fields) {
    let value = Object.hasOwn(given, field.name) ? given[field.name]! : (defaults.get(field.name) ?? null);
    if (isIdentity(field)) {
      // bigInteger keys are canonical digit strings; the counter stays well inside 2^53.
      if (value === null && !Object.hasOwn(given, field.name)) {
        const next = identity.next;
        value = field.type === 'bigInteger' ? String(next) : next;
      }
      if (value !== null) identity.next = Math.max(identity.next, Number(value) + 1);
    }
    if (value === null && !field.nullable) throw notNullViolation(field.name);
    row[field.name] = value;
  }
  return row;
}

/** An integer key the database numbers itself: an identity column (it has a default but no expression). */
function isIdentity(field: FieldSchema): boolean {
  return field.isPrimaryKey && field.hasDefault && field.defaultValue === null && field.type !== 'uuid';
}

/**
 * A written value as the column stores it, given in a client's spelling (numbers or digit strings for
 * int8, JSON values for json, JSON arrays for arrays…): canonical, or refused as PostgreSQL would refuse it. Columns of types the
 * API does not model keep their text as given.
 */
export function storedValue(field: FieldSchema, raw: unknown): ScalarValue | null {
  if (raw === null) return null;
  if (field.type === 'unknown') {
    if (typeof raw === 'string') return raw;
    throw invalidFieldValue(field.name);
  }
  let value: ScalarValue;
  try {
    value = coerceValue(field, raw);
  } catch (error) {
    if (error instanceof DomainError) throw invalidFieldValue(field.name);
    throw error;
  }
  if (
    field.maxLength !== null &&
    typeof value === 'string' &&
    characterCount(value, field.maxLength) > field.maxLength
  ) {
    throw valueTooLong(field.name);
  }
  return value;
}

/**
 * An ItemWriter payload (canonical already: json as its JSON text) as stored values; re-coercing also
 * normalizes what PostgreSQL would (`1.10` → `1.1`, upper-case uuids).
 */
function writtenValues(schema: CollectionSchema, values: ItemValues): Record<string, ScalarValue | null> {
  const written: Record<string, ScalarValue | null> = Object.create(null);
  for (const [name, value] of Object.entries(values)) {
    const field = fieldOf(schema, name);
    if (!field) throw new StaleSchemaError();
    if (field.type === 'unknown') throw notWritable(name);
    written[name] =
      field.type === 'json' && value !== null
        ? storedJson(field, value)
        : field.type === 'array' && value !== null
          ? storedValue(field, parsedArray(field, value))
          : storedValue(field, value);
  }
  return written;
}

/** An array's canonical JSON text as the JSON array it stands for, to be checked again element by element. */
function parsedArray(field: FieldSchema, text: ScalarValue): unknown {
  try {
    return JSON.parse(String(text));
  } catch {
    throw invalidFieldValue(field.name);
  }
}

/** JSON text as jsonb keeps it; the text `null` is a JSON value, unlike SQL NULL. */
function storedJson(field: FieldSchema, text: ScalarValue): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(String(text));
  } catch {
    throw invalidFieldValue(field.name);
  }
  const canonical = canonicalJson(parsed);
  if (canonical === null) throw invalidFieldValue(field.name);
  return canonical;
}

/** Primary key and unique columns hold each value once; like PostgreSQL, any number of nulls. */
export function assertUnique(schema: CollectionSchema, rows: ReadonlyArray<StoredRow>): void {
  for (const field of schema.fields.filter((candidate) => candidate.isUnique || candidate.isPrimaryKey)) {
    // Canonical values are equal exactly when their texts are (per type, hence the type prefix).
    const seen = new Set<string>();
    for (const row of rows) {
      const value = row[field.name] ?? null;
      if (value === null) continue;
      const text = `${typeof value}:${value}`;
      if (seen.has(text)) throw uniqueViolation([field.name]);
      seen.add(text);
    }
  }
}

/** The row without columns of types the API does not model, as ItemWriter returns rows. */
function modelled(schema: CollectionSchema, row: StoredRow): StoredItem {
  const item: StoredRow = Object.create(null);
  for (const field of schema.fields) {
    if (field.type !== 'unknown') item[field.name] = row[field.name] ?? null;
  }
  return item;
}

/** The row's modelled columns in their wire forms, as the SQL writer's revision `data` holds them. */
function wireImage(schema: CollectionSchema, row: StoredRow): Record<string, unknown> {
  const fields = schema.fields.filter((field) => field.type !== 'unknown');
  const members = fields.map(
    (field) => `${JSON.stringify(field.name)}:${wireJson(field, row[field.name] ?? null)}`,
  );
  return JSON.parse(`{${members.join(',')}}`) as Record<string, unknown>;
}

function primaryKeyOf(schema: CollectionSchema): FieldSchema {
  const key = schema.primaryKey === null ? undefined : fieldOf(schema, schema.primaryKey);
  if (!key) throw new Error(`Collection "${schema.name}" has no single-column primary key to write by`);
  return key;
}
