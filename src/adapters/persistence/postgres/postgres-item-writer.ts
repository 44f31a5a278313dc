import { type RawBuilder, sql, type Transaction } from 'kysely';
import type {
  ItemKeysRequest,
  ItemValues,
  ItemWriter,
  StoredItem,
} from '../../../application/ports/item-store.ts';
import type { BoundFilterNode, ScalarValue } from '../../../domain/query/filter.ts';
import {
  type CollectionSchema,
  elementField,
  type FieldSchema,
} from '../../../domain/schema/collection-schema.ts';
import { type ActivityRecording, type ActivitySql, activitySql } from './activity-recording.ts';
import { canonicalValueOf, canonicalValueSql } from './canonical-value-sql.ts';
import { parameterTypeOf } from './column-types.ts';
import type { WriteErrorContext } from './database-errors.ts';
import { comparable, fieldOrThrow, filterSql } from './filter-sql.ts';
import { ITEM_EVENTS_CHANNEL } from './item-events-wake-ups.ts';
import { recordedByTrigger } from './item-events-watch-sql.ts';
import { itemKeysQuery, itemsWithinBudget } from './item-read-statements.ts';
import { type RowScope, tableOf, topScope } from './row-scope.ts';
import { notWritable } from './write-refusals.ts';

/**
 * The transaction-scoped advisory lock a writing transaction holds from its first event to its commit, so
 * that the change log's ids are handed out in commit order (docs/decisions/0030-item-change-log.md).
 */
export const ITEM_EVENTS_LOCK = 1_684_108_385;

/** The wire protocol counts bind parameters in 16 bits: one statement binds at most 65,535 values. */
const MAX_PARAMETERS = 65_535;

/** Parameters of an insert that are not row values: the change log's collection, action and watch check. */
const RESERVED_PARAMETERS = 8;

/**
 * A statement of the transaction failed; the transaction is aborted. Carries what was being written, so
 * that PostgresItemStore.write can name the field once it has rolled back (translateWriteError).
 */
export class FailedStatement extends Error {
  constructor(
    readonly context: WriteErrorContext,
    cause: unknown,
  ) {
    super('A write statement failed; the transaction is rolled back.', { cause });
    this.name = 'FailedStatement';
  }
}

/**
 * ItemWriter on one open transaction. Identifiers go through `sql.id`; every value is a bound parameter
 * cast to its field's parameter type (column-types.ts), never to the column's own type: an explicit cast
 * to `varchar(3)` or `numeric(5,2)` would silently truncate or round, whereas PostgreSQL's assignment to
 * the column refuses what does not fit (22001, 22003), which becomes FAILED_VALIDATION.
 *
 * After a failed statement PostgreSQL refuses everything but a rollback, so the writer does too: every
 * later call rethrows the first failure, and so does `rethrowFailure` — a `work` that swallowed the error
 * must not get a COMMIT, which PostgreSQL would silently turn into a ROLLBACK.
 */
export class PostgresItemWriter implements ItemWriter {
  private failure: FailedStatement | undefined;
  private holdsEventsLock = false;

  /**
   * `activity`: where each write records its activity and revisions (docs/api.md §14); absent, none.
   * `eventsTable`: the items' change log (docs/api.md §12), which then gets an event for each changed row;
   * absent, nothing is recorded.
   */
  constructor(
    private readonly trx: Transaction<unknown>,
    private readonly schema: string,
    private readonly eventsTable?: RawBuilder<unknown>,
    private readonly activity?: ActivityRecording,
  ) {}

  /**
   * One multi-row INSERT (split only past the bind-parameter limit) over the union of the rows' fields, a
   * field a row lacks taking its DEFAULT. The keys come back in input order: PostgreSQL returns the
   * rows of `insert … values … returning` in the order of the VALUES list. A collection without a primary
   * key has nothing to return, so the answer is [].
   */
  async insert(collection: CollectionSchema, rows: ReadonlyArray<ItemValues>): Promise<ScalarValue[]> {
    if (rows.length === 0) return [];
    const columns = insertedColumns(collection, rows);
    const perStatement = Math.max(1, Math.floor((MAX_PARAMETERS - RESERVED_PARAMETERS) / columns.length));
    const keys: ScalarValue[] = [];
    for (let start = 0; start < rows.length; start += perStatement) {
      const chunk = rows.slice(start, start + perStatement);
      const tuples = chunk.map(
        (row) =>
          sql`(${sql.join(
            columns.map((field) =>
              Object.hasOwn(row, field.name) ? parameter(field, row[field.name] ?? null) : sql`default`,
            ),
          )})`,
      );
      keys.push(...(await this.inserted(collection, columns, sql`values ${sql.join(tuples)}`, chunk)));
    }
    return keys;
  }

  /**
   * `insert … select … from json_to_recordset($1)`: the rows travel as one JSON parameter, which costs
   * PostgreSQL and the driver far less per row than one bound parameter per value (measured in
   * docs/decisions/0035-streamed-import.md). The recordset's columns are text, each cast on exactly as
   * `insert` casts its parameters. A run of consecutive rows naming the same fields is one statement, so a
   * field a row lacks still takes its DEFAULT, and the rows are inserted in input order (identities and
   * sequences count in that order, as with `insert`); a function scan returns the rows in the array's
   * order, and the insert returns them in that order, as with VALUES.
   */
  async insertBulk(collection: CollectionSchema, rows: ReadonlyArray<ItemValues>): Promise<ScalarValue[]> {
    const keys: ScalarValue[] = [];
    let start = 0;
    while (start < rows.length) {
      const shape = Object.keys(rows[start]!);
      let end = start + 1;
      while (end < rows.length && sameKeys(rows[end]!, shape)) end++;
      const run = rows.slice(start, end);
      const columns = insertedColumns(collection, [run[0]!]);
      // A row naming no field at all is inserted with DEFAULT in its first column, which only VALUES says.
      keys.push(
        ...(shape.length === 0
          ? await this.insert(collection, run)
          : await this.inserted(collection, columns, recordsetSql(columns, run), run)),
      );
      start = end;
    }
    return keys;
  }

  /** `insert into <table> (<columns>) <rows>`, its events recorded, returning the new keys in order. */
  private async inserted(
    collection: CollectionSchema,
    columns: ReadonlyArray<FieldSchema>,
    source: RawBuilder<unknown>,
    values: ReadonlyArray<ItemValues>,
  ): Promise<ScalarValue[]> {
    const key = collection.primaryKey === null ? null : fieldOrThrow(collection, collection.primaryKey);
    const returning = key ? sql`returning to_json(${canonicalValueSql(key)})::text as key` : sql``;
    const insert = sql`insert into ${this.table(collection)} (${sql.join(columns.map((field) => sql.id(field.name)))})
        ${source}`;
    const context = { statement: 'insert', collection, values } as const;
    const events = key !== null && (await this.recording(context));
    const audit = key && this.audited(collection, 'create', null);
    const inserted =
      events || audit
        ? await this.run<{ key: string }>(
            recordedStatement({
              write: sql`${insert} ${returning}`,
              image: events ? sql`${imageSql(collection)} as after` : null,
              audit,
              logged: events
                ? sql`, logged as (${this.logged(collection, 'create', sql`null`, sql`changed.after`)})`
                : sql``,
              tail: sql`select key from changed`,
            }),
            context,
          )
        : await this.run<{ key: string }>(sql`${insert} ${returning}`, context);
    return key ? inserted.map((row) => canonicalValueOf(key, JSON.parse(row.key))!) : [];
  }

  /** Locked in key order, so that two writers locking overlapping keys queue instead of deadlocking. */
  async lockRows(
    collection: CollectionSchema,
    keys: ReadonlyArray<ScalarValue>,
  ): Promise<Map<string, StoredItem>> {
    if (keys.length === 0) return new Map();
    const key = primaryKeyOf(collection);
    const rows = await this.lock(collection, sql`where ${matchesKeys(key, keys, this.scope)}`);
    return new Map(rows.map((row) => [String(row[key.name]), row]));
  }

  async lockMatching(
    collection: CollectionSchema,
    filter: BoundFilterNode | null,
    limit?: number,
  ): Promise<StoredItem[]> {
    const where = filter === null ? sql`` : sql`where ${filterSql(filter, collection, this.scope)}`;
    return this.lock(collection, where, limit === undefined ? sql`` : sql`limit ${limit}`);
  }

  async update(
    collection: CollectionSchema,
    keys: ReadonlyArray<ScalarValue>,
    values: ItemValues,
  ): Promise<void> {
    const names = Object.keys(values);
    if (keys.length === 0 || names.length === 0) return;
    const assignments = names.map((name) => {
      const field = writableField(collection, name);
      return sql`${sql.id(name)} = ${parameter(field, values[name] ?? null)}`;
    });
    const key = primaryKeyOf(collection);
    const where = matchesKeys(key, keys, this.scope);
    const update = sql`update ${this.aliased(collection)} set ${sql.join(assignments)} where ${where}`;
    const context = { statement: 'update', collection, values: [values] } as const;
    const events = await this.recording(context);
    const audit = this.audited(collection, 'update', names);
    if (!events && !audit) {
      await this.run(update, context);
      return;
    }
    const write = sql`${update} returning ${keySql(key)} as key`;
    if (!events) {
      await this.run(
        recordedStatement({ write, image: null, audit, tail: sql`select count(*) from changed` }),
        context,
      );
      return;
    }
    // Every sub-statement sees the snapshot from before the update: `old` reads the rows as they were (and
    // takes no lock of its own: locking a row this very statement updates would skip the row).
    await this.run(
      recordedStatement({
        before: sql`old as (select ${keySql(key)} as key, ${imageSql(collection)} as before
          from ${this.aliased(collection)} where ${where}),`,
        write,
        image: sql`${imageSql(collection)} as after`,
        audit,
        tail: this.logged(
          collection,
          'update',
          sql`old.before`,
          sql`changed.after`,
          sql`join old on old.key = changed.key`,
        ),
      }),
      context,
    );
  }

  async delete(collection: CollectionSchema, keys: ReadonlyArray<ScalarValue>): Promise<void> {
    if (keys.length === 0) return;
    const key = primaryKeyOf(collection);
    const remove = sql`delete from ${this.aliased(collection)} where ${matchesKeys(key, keys, this.scope)}`;
    const context = { statement: 'delete', collection, values: [] } as const;
    const events = await this.recording(context);
    const audit = this.audited(collection, 'delete', null);
    if (!events && !audit) {
      await this.run(remove, context);
      return;
    }
    await this.run(
      recordedStatement({
        write: sql`${remove} returning ${keySql(key)} as key`,
        image: events ? sql`${imageSql(collection)} as before` : null,
        audit,
        tail: events
          ? this.logged(collection, 'delete', sql`changed.before`, sql`null`)
          : sql`select count(*) from changed`,
      }),
      context,
    );
  }

  /** PostgresItemStore.getMany's statement, inside the transaction: it sees the rows written so far. */
  async getMany(request: ItemKeysRequest): Promise<string[]> {
    if (request.keys.length === 0) return [];
    const rows = await this.run(itemKeysQuery(request, this.schema), {
      statement: 'read',
      collection: request.collection,
      values: [],
    });
    return itemsWithinBudget(rows, request.maxBytes);
  }

  /**
   * Whether this statement records events; the first that does takes the change log's lock, held to the
   * commit, so that events get their ids in commit order, and notifies the wake-up channel, which
   * PostgreSQL delivers at commit (item-events-wake-ups.ts).
   */
  private async recording(context: WriteErrorContext): Promise<boolean> {
    if (!this.eventsTable) return false;
    if (!this.holdsEventsLock) {
      await this.run(
        sql`select pg_advisory_xact_lock(${ITEM_EVENTS_LOCK}::int8), pg_notify(${ITEM_EVENTS_CHANNEL}, '')`,
        context,
      );
      this.holdsEventsLock = true;
    }
    return true;
  }

  /** The activity this statement records (activity-recording.ts); null when it records none. */
  private audited(
    collection: CollectionSchema,
    action: 'create' | 'update' | 'delete',
    written: ReadonlyArray<string> | null,
  ): ActivitySql | null {
    return this.activity ? activitySql(this.activity, collection, action, written) : null;
  }

  /**
   * Inserts the CTE `changed`'s rows into the change log, in the order the statement returned them —
   * unless the collection is watched, whose trigger records every change, this one included
   * (item-events-watch-sql.ts). Asked of the catalog by the statement itself: a watch or an unwatch
   * waits for a transaction writing the table and vice versa, so each change is recorded exactly once.
   */
  private logged(
    collection: CollectionSchema,
    action: 'create' | 'update' | 'delete',
    before: RawBuilder<unknown>,
    after: RawBuilder<unknown>,
    join: RawBuilder<unknown> = sql``,
  ): RawBuilder<unknown> {
    return sql`insert into ${this.eventsTable!} ("collection", "action", "key", "before", "after")
      select ${collection.name}::text, ${action}::text, changed.key::jsonb, (${before})::json, (${after})::json
      from changed ${join}
      where not ${recordedByTrigger(this.schema, collection.name)}`;
  }

  /** Throws the failure of an earlier statement, if any: the transaction must then roll back. */
  rethrowFailure(): void {
    if (this.failure) throw this.failure;
  }

  /**
   * The rows of the relation, locked, as canonical values of every modelled column, in primary-key order.
   * `row_to_json` over a subquery rather than `json_build_object`, which takes at most 50 columns.
   */
  private async lock(
    collection: CollectionSchema,
    where: RawBuilder<unknown>,
    limit: RawBuilder<unknown> = sql``,
  ): Promise<StoredItem[]> {
    const fields = collection.fields.filter((field) => field.type !== 'unknown');
    const columns = sql.join(
      fields.map((field) => sql`${canonicalValueSql(field)} as ${sql.id(field.name)}`),
    );
    const order =
      collection.primaryKey === null
        ? sql``
        : sql`order by ${comparable(fieldOrThrow(collection, collection.primaryKey), this.scope)}`;
    // An empty field list is legal SQL (`select from`) and reads as `{}`.
    const rows = await this.run<{ item: string }>(
      sql`select row_to_json(item.*)::text as item
        from (select ${fields.length === 0 ? sql`` : columns} from ${this.aliased(collection)} ${where} ${order} ${limit} for update) as item`,
      { statement: 'lock', collection, values: [] },
    );
    return rows.map(({ item }) => {
      const rendered = JSON.parse(item) as Record<string, unknown>;
      const row: Record<string, ScalarValue | null> = Object.create(null);
      for (const field of fields) row[field.name] = canonicalValueOf(field, rendered[field.name]);
      return row;
    });
  }

  private async run<R>(query: RawBuilder<R>, context: WriteErrorContext): Promise<R[]> {
    this.rethrowFailure();
    try {
      return (await query.execute(this.trx)).rows;
    } catch (error) {
      this.failure = new FailedStatement(context, error);
      throw this.failure;
    }
  }

  private table(collection: CollectionSchema): RawBuilder<unknown> {
    return sql.id(this.schema, collection.name);
  }

  /** The table as the filters and key conditions, which qualify their columns, read it (row-scope.ts). */
  private aliased(collection: CollectionSchema): RawBuilder<unknown> {
    return tableOf(this.scope, collection.name);
  }

  private get scope(): RowScope {
    return topScope(this.schema);
  }
}

/** The primary key's canonical value as jsonb, as the change log keeps it. */
export function keySql(key: FieldSchema): RawBuilder<unknown> {
  return sql`to_jsonb(${canonicalValueSql(key)})`;
}

/**
 * The row's modelled columns as a canonical JSON object's text, in a subquery over the row's columns
 * (`json_build_object` takes at most 50 columns). A watched collection's trigger renders its images with it too.
 */
export function imageSql(collection: CollectionSchema): RawBuilder<unknown> {
  const fields = collection.fields.filter((field) => field.type !== 'unknown');
  const columns = sql.join(fields.map((field) => sql`${canonicalValueSql(field)} as ${sql.id(field.name)}`));
  return sql`(select row_to_json(image.*)::text from (select ${fields.length === 0 ? sql`` : columns}) as image)`;
}

/**
 * The union of the rows' fields, in the collection's column order. Rows that name no field at all still
 * need one column to say DEFAULT in: the first one serves.
 */
function insertedColumns(collection: CollectionSchema, rows: ReadonlyArray<ItemValues>): FieldSchema[] {
  const named = new Set(rows.flatMap((row) => Object.keys(row)));
  for (const name of named) writableField(collection, name);
  const columns = collection.fields.filter((field) => named.has(field.name));
  if (columns.length > 0) return columns;
  const first = collection.fields[0];
  if (!first) throw new Error(`Collection "${collection.name}" has no columns to insert into`);
  return [first];
}

/** A field of the collection that can take a value; `unknown` types have no canonical value to bind. */
function writableField(collection: CollectionSchema, name: string): FieldSchema {
  const field = fieldOrThrow(collection, name);
  if (field.type === 'unknown') throw notWritable(name);
  return field;
}

/**
 * A bound value cast to its field's parameter type; null binds as a typed NULL. json binds its JSON text.
 * Two kinds of column take no assignment from their parameter type, so the bound value is cast on:
 * - an enum, to the enum type itself, which is safe as the label was checked against the catalog's;
 * - an array, whose canonical JSON text becomes an array of its elements' parameter type, in order, then
 *   of the enum type for enum elements; assignment to the column checks each element as a scalar's is
 *   checked (length, range).
 * `dbType` is format_type's output, quoted where needed, and comes from the catalog, never a caller.
 */
function parameter(field: FieldSchema, value: ScalarValue | null): RawBuilder<unknown> {
  return typedValue(field, sql`${value}::${sql.raw(parameterTypeOf(field))}`);
}

/** `bound`, already of the field's parameter type, cast on as `parameter` says. */
function typedValue(field: FieldSchema, bound: RawBuilder<unknown>): RawBuilder<unknown> {
  if (field.choices !== undefined) return sql`${bound}::${sql.raw(field.dbType)}`;
  if (field.type !== 'array') return bound;
  const element = elementField(field);
  const elements = sql`array(select element.value::${sql.raw(parameterTypeOf(element))}
    from jsonb_array_elements_text(bound.value) with ordinality as element (value, position)
    order by element.position)`;
  const array = element.choices === undefined ? elements : sql`${elements}::${sql.raw(field.dbType)}`;
  // One bound parameter, however the value is used: the insert's chunking counts one per value.
  return sql`(select case when bound.value is null then null else ${array} end
    from (select ${bound} as value) as bound)`;
}

/**
 * The rows, each naming exactly `columns`, as the source of an insert: one JSON parameter read as a
 * recordset of text columns, each cast to its field's parameter type and on as `parameter` casts. The
 * canonical values (numbers, booleans, strings; json and array fields as their JSON text) read back as
 * text unchanged: JSON numbers as the shortest text that round-trips.
 */
/**
 * A write and what it records, as one statement (docs/decisions/0030, 0033): the CTE `changed` is the write
 * returning its key (`write` ends with its RETURNING), the change log's image of each row when `image` is
 * given, and the activity's columns; then `logged` (a CTE writing the change log, when the statement
 * ends with something else), the activity's CTEs, and `tail`, the statement that reads `changed`.
 * `before`: CTEs that must read the rows before the write (each followed by a comma).
 */
function recordedStatement<R = unknown>(parts: {
  readonly before?: RawBuilder<unknown>;
  readonly write: RawBuilder<unknown>;
  readonly image: RawBuilder<unknown> | null;
  readonly audit: ActivitySql | null;
  readonly logged?: RawBuilder<unknown>;
  readonly tail: RawBuilder<unknown>;
}): RawBuilder<R> {
  const { before = sql``, write, image, audit, logged = sql``, tail } = parts;
  return sql<R>`with ${before} changed as (${write}${image ? sql`, ${image}` : sql``}${audit ? audit.returning : sql``})
    ${logged} ${audit ? audit.ctes : sql``}
    ${tail}`;
}

/** Whether `row` names exactly `keys`, in that order (one recordset's column list), without an array per row. */
function sameKeys(row: ItemValues, keys: ReadonlyArray<string>): boolean {
  let index = 0;
  for (const key in row) {
    if (!Object.hasOwn(row, key) || keys[index] !== key) return false;
    index++;
  }
  return index === keys.length;
}

function recordsetSql(
  columns: ReadonlyArray<FieldSchema>,
  rows: ReadonlyArray<ItemValues>,
): RawBuilder<unknown> {
  const values = columns.map((field) =>
    typedValue(field, sql`record.${sql.id(field.name)}::${sql.raw(parameterTypeOf(field))}`),
  );
  const definitions = columns.map((field) => sql`${sql.id(field.name)} text`);
  return sql`select ${sql.join(values)}
    from json_to_recordset(${JSON.stringify(rows)}::json) as record (${sql.join(definitions)})`;
}

function matchesKeys(
  key: FieldSchema,
  keys: ReadonlyArray<ScalarValue>,
  scope: RowScope,
): RawBuilder<unknown> {
  return sql`${comparable(key, scope)} = any (${[...keys]}::${sql.raw(parameterTypeOf(key))}[])`;
}

/** Writing by key needs a key; the application only addresses collections that have one. */
function primaryKeyOf(collection: CollectionSchema): FieldSchema {
  if (collection.primaryKey === null) {
    throw new Error(`Collection "${collection.name}" has no single-column primary key to write by`);
  }
  return fieldOrThrow(collection, collection.primaryKey);
}
