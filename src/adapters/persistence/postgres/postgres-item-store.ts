import {
  DummyDriver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type RawBuilder,
  sql,
} from 'kysely';
import type {
  ItemGetRequest,
  ItemKeysRequest,
  ItemListRequest,
  ItemListResult,
  ItemStore,
  ItemWriter,
  SelectedField,
} from '../../../application/ports/item-store.ts';
import type { BoundFilterNode } from '../../../domain/query/filter.ts';
import type { SortField } from '../../../domain/query/item-query.ts';
import type { CollectionSchema, FieldSchema } from '../../../domain/schema/collection-schema.ts';
import { parameterTypeOf } from './column-types.ts';
import { translateReadError, translateWriteError } from './database-errors.ts';
import { comparable, fieldOrThrow, filterSql } from './filter-sql.ts';
import { jsonValueSql } from './json-value-sql.ts';
import { FailedStatement, PostgresItemWriter } from './postgres-item-writer.ts';

/** count(*) is int8: a string from pg and from PGlite as configured (embedded-postgres.ts). */
type ListRow = { items: string; total_count?: string; filter_count?: string };

/**
 * Reads items with one SQL statement per call; PostgreSQL builds the JSON text and it is handed on without
 * parsing (architecture.md, "Read side may skip the domain").
 *
 * Measured once (2-core box, 100-row pages of a 10k-row `cargos`, all 6 fields) against fetching the rows
 * and `JSON.stringify` in Node (with only the timestamp fix-up; the int8/numeric rules would cost more):
 * - 8 concurrent callers, PostgreSQL 15: json_agg 6.6k pages/s at 0.08 ms Node CPU per page, stringify
 *   5.3k/s at 0.21 ms; PGlite: 2.5k/s vs 1.4k/s.
 * - One caller at a time, PostgreSQL: json_agg 0.37 ms vs stringify 0.28 ms per page (1000-row pages:
 *   2.3 vs 1.8 ms) — the server's JSON work shows in latency; PGlite: 0.41 vs 0.75 ms (1000 rows: 3.0 vs 7.9).
 * Kept json_agg: Node's single thread is what limits a server, and it does 2.5× less work per page.
 */
export class PostgresItemStore implements ItemStore {
  /** `schema`: the PostgreSQL schema holding the collections' tables. */
  constructor(
    private readonly db: Kysely<unknown>,
    private readonly schema = 'public',
  ) {}

  async list(request: ItemListRequest): Promise<ItemListResult> {
    const row = (await this.queryOne(itemListQuery(request, this.schema)))!;
    return {
      json: row.items,
      ...(row.total_count === undefined ? {} : { totalCount: Number(row.total_count) }),
      ...(row.filter_count === undefined ? {} : { filterCount: Number(row.filter_count) }),
    };
  }

  async get(request: ItemGetRequest): Promise<string | null> {
    const row = await this.queryOne(itemGetQuery(request, this.schema));
    return row?.item ?? null;
  }

  async getMany(request: ItemKeysRequest): Promise<string[]> {
    if (request.keys.length === 0) return [];
    try {
      const { rows } = await itemKeysQuery(request, this.schema).execute(this.db);
      return rows.map((row) => row.item);
    } catch (error) {
      throw translateReadError(error);
    }
  }

  /**
   * One Kysely transaction on the same pool (or PGlite connection) the reads use. It holds its connection
   * from BEGIN to COMMIT; on PGlite, whose single connection sits behind a FIFO mutex, other statements
   * — reads and other writes — queue until it ends. So `work` must use only the writer: awaiting anything
   * else that needs the database inside it deadlocks on PGlite.
   *
   * Errors are translated after the rollback (a unique violation's field comes from the catalog, which an
   * aborted transaction no longer answers); `work` itself sees a FailedStatement and should let it pass.
   */
  async write<T>(work: (writer: ItemWriter) => Promise<T>): Promise<T> {
    try {
      return await this.db.transaction().execute(async (trx) => {
        const writer = new PostgresItemWriter(trx, this.schema);
        const result = await work(writer);
        writer.rethrowFailure();
        return result;
      });
    } catch (error) {
      throw error instanceof FailedStatement
        ? await translateWriteError(error.cause, error.context, this.db, this.schema)
        : await translateWriteError(error, undefined, this.db, this.schema);
    }
  }

  private async queryOne<R>(query: RawBuilder<R>): Promise<R | undefined> {
    try {
      const { rows } = await query.execute(this.db);
      return rows[0];
    } catch (error) {
      throw translateReadError(error);
    }
  }
}

/** A statement as it goes to the driver: SQL text with `$n` placeholders and their values. */
export type CompiledItemQuery = { readonly sql: string; readonly parameters: ReadonlyArray<unknown> };

/**
 * Kysely with a driver that never connects: only compiles. Compiling needs no connection, and the
 * PostgreSQL compiler is the one both the pg pool and the PGlite dialect use.
 */
const compiler = new Kysely<unknown>({
  dialect: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (db) => new PostgresIntrospector(db),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  },
});

/**
 * The exact statement `list()` sends for `request`, without running it (for the benchmark's floor and
 * for inspecting plans). `schema`: the PostgreSQL schema holding the collections' tables.
 */
export function compileItemList(request: ItemListRequest, schema = 'public'): CompiledItemQuery {
  const { sql: text, parameters } = itemListQuery(request, schema).compile(compiler);
  return { sql: text, parameters };
}

/** The exact statement `get()` sends for `request`, without running it. */
export function compileItemGet(request: ItemGetRequest, schema = 'public'): CompiledItemQuery {
  const { sql: text, parameters } = itemGetQuery(request, schema).compile(compiler);
  return { sql: text, parameters };
}

/** One statement: the page as JSON text, plus the counts `request.count` asks for. */
function itemListQuery(request: ItemListRequest, schema: string): RawBuilder<ListRow> {
  const table = sql.id(schema, request.collection.name);
  const where = conjunction([request.visible, request.filter], request.collection);
  const page = sql`select * from ${table} ${where} ${orderBy(request.sort, request.collection)}
      ${request.limit === null ? sql`` : sql`limit ${request.limit}`} offset ${request.offset}`;
  // json_agg over an ordered subquery without joins keeps that order (PostgREST relies on the same).
  // The formatting runs on the page only: the innermost level sorts and cuts whole rows first.
  const items = sql`select coalesce(json_agg(item.*), '[]'::json)::text
      from (select ${projection(request.select, request.collection)} from (${page}) as source) as item`;
  // Counts are scalar subqueries of the same statement, so they see the same snapshot as the page.
  const columns = [sql`(${items}) as items`];
  if (request.count.total) {
    const visible = conjunction([request.visible], request.collection);
    columns.push(sql`(select count(*) from ${table} ${visible}) as total_count`);
  }
  if (request.count.filtered) columns.push(sql`(select count(*) from ${table} ${where}) as filter_count`);
  return sql<ListRow>`select ${sql.join(columns)}`;
}

/** One statement: the visible row with the key as JSON object text, or no row. */
function itemGetQuery(request: ItemGetRequest, schema: string): RawBuilder<{ item: string }> {
  const { collection } = request;
  const key = primaryKeyOf(collection);
  const matchesKey = sql`${comparable(key)} = ${request.id}::${sql.raw(parameterTypeOf(key))}`;
  const visible = request.visible ? sql` and ${filterSql(request.visible, collection)}` : sql``;
  return sql<{ item: string }>`select row_to_json(item.*)::text as item
      from (select ${projection(request.select, collection)} from ${sql.id(schema, collection.name)}
        where ${matchesKey}${visible}) as item`;
}

/**
 * One statement: a row per wanted key that has a visible row, as JSON object text, in the order of the
 * keys. The table is read in its own subquery, so that its columns, referenced unqualified by the
 * projection and the filter, never meet the names of the key list; each row's projection is a
 * correlated subquery so that the key it is joined on is not part of the item.
 */
function itemKeysQuery(request: ItemKeysRequest, schema: string): RawBuilder<{ item: string }> {
  const { collection } = request;
  const key = primaryKeyOf(collection);
  const keyType = sql.raw(parameterTypeOf(key));
  const keys = sql`${[...request.keys]}::${keyType}[]`;
  const visible = request.visible ? sql` and ${filterSql(request.visible, collection)}` : sql``;
  return sql<{ item: string }>`select found.item
      from unnest(${keys}) with ordinality as wanted (key, position)
      join (select ${comparable(key)} as key,
          (select row_to_json(item.*) from (select ${projection(request.select, collection)}) as item)::text as item
        from ${sql.id(schema, collection.name)}
        where ${comparable(key)} = any (${keys})${visible}) as found
      on found.key = wanted.key
      order by wanted.position`;
}

function primaryKeyOf(collection: CollectionSchema): FieldSchema {
  if (collection.primaryKey === null) {
    throw new Error(`Collection "${collection.name}" has no single-column primary key to get items by`);
  }
  return fieldOrThrow(collection, collection.primaryKey);
}

/** `where a and b` over the present filters, or nothing. */
function conjunction(
  filters: ReadonlyArray<BoundFilterNode | null>,
  collection: CollectionSchema,
): RawBuilder<unknown> {
  const present = filters.filter((filter) => filter !== null);
  if (present.length === 0) return sql``;
  return sql`where ${sql.join(
    present.map((filter) => filterSql(filter, collection)),
    sql` and `,
  )}`;
}

/**
 * The selected fields in `select` order, named as themselves, each formatted for JSON and masked to null
 * where its `visibleWhen` does not hold. An empty selection is legal SQL and yields `{}` per row.
 */
function projection(select: ReadonlyArray<SelectedField>, collection: CollectionSchema): RawBuilder<unknown> {
  return sql.join(
    select.map(({ field, visibleWhen }) => {
      const value = jsonValueSql(fieldOrThrow(collection, field));
      const shown = visibleWhen
        ? sql`case when ${filterSql(visibleWhen, collection)} then ${value} end`
        : value;
      return sql`${shown} as ${sql.id(field)}`;
    }),
  );
}

/**
 * The requested order with PostgreSQL's null placement (last ascending, first descending), then the primary
 * key, so that pages never overlap or skip rows with equal sort values.
 */
function orderBy(sort: ReadonlyArray<SortField>, collection: CollectionSchema): RawBuilder<unknown> {
  const keys = sort.map(({ field, direction }) => ({ field: fieldOrThrow(collection, field), direction }));
  const { primaryKey } = collection;
  if (primaryKey !== null && !sort.some(({ field }) => field === primaryKey)) {
    keys.push({ field: fieldOrThrow(collection, primaryKey), direction: 'asc' });
  }
  if (keys.length === 0) return sql``;
  return sql`order by ${sql.join(
    keys.map(
      ({ field, direction }) => sql`${comparable(field)} ${direction === 'desc' ? sql`desc` : sql`asc`}`,
    ),
  )}`;
}
