import { CompiledQuery, type Kysely, type RawBuilder } from 'kysely';
import type pg from 'pg';
import type {
  ItemAggregateRequest,
  ItemGetRequest,
  ItemKeysRequest,
  ItemListRequest,
  ItemListResult,
  ItemSnapshot,
  ItemStore,
  ItemWriter,
  StoredItem,
} from '../../../application/ports/item-store.ts';
import { liveSnapshot } from '../../../application/ports/item-store.ts';
import type { Accountability } from '../../../domain/accountability.ts';
import type { DatabaseWork } from '../../../domain/database-work.ts';
import { connectFor, setLocalTimeout } from '../statement-timeout-per-work.ts';
import { type ActivityTables, activityTables } from './activity-recording.ts';
import { canonicalValueOf } from './canonical-value-sql.ts';
import { CompiledShapes, compiler, type ShapeStatement } from './compiled-shapes.ts';
import { type CountEstimates, countEstimates } from './count-estimates.ts';
import { translateReadError, translateWriteError } from './database-errors.ts';
import { fieldOrThrow } from './filter-sql.ts';
import { type AggregateRow, itemAggregateQuery } from './item-aggregate-statements.ts';
import { itemEventsTable } from './item-events-table.ts';
import {
  assertWithinBudget,
  type ItemRow,
  itemGetQuery,
  itemListQuery,
  itemsWithinBudget,
  type ListRow,
} from './item-read-statements.ts';
import { FailedStatement, PostgresItemWriter } from './postgres-item-writer.ts';
import { isPlanResultChanged, PreparedStatementQuery } from './prepared-statement-query.ts';

export type PostgresItemStoreOptions = {
  /**
   * Prepared statements per pooled connection, at most; 0 runs every read unprepared. Only for pg's
   * pool: PGlite's driver takes SQL text alone.
   */
  readonly preparedPerConnection?: number;
  /**
   * The pg pool under `db`, once it exists: reads (prepared or not) take a connection from it and run on pg's
   * client directly, without Kysely's executor, which adds a few promises and ~5 % CPU to a one-row read
   * (bench/NOTES.md §7). Their connections come out of it with the statement timeout of the request's work
   * (`connectFor`), and its per-work timeouts bound a write's transaction and a snapshot too
   * (`setLocalTimeout`). Unset: every read goes through Kysely, with the pool's own bound.
   */
  readonly readPool?: () => pg.Pool | undefined;
  /**
   * Every write also records its events in the items' change log (docs/api.md §12), whose table lives in
   * this schema (the system tables'; unset, the connection's search path finds it); absent, none.
   */
  readonly recordEvents?: { readonly systemSchema?: string };
  /**
   * Every write also records its activity and revisions (docs/api.md §14) in the tables of this schema
   * (unset, the search path's); absent, none.
   */
  readonly recordActivity?: { readonly systemSchema?: string };
  /**
   * `snapshot()` holds a repeatable-read transaction on a pool connection; false (PGlite, whose one
   * connection every request shares) reads each page as it is.
   */
  readonly holdsSnapshots?: boolean;
};

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
 * Kept JSON built in SQL: Node's single thread is what limits a server, and it does 2.5× less work per page.
 * The page is now `string_agg` of `row_to_json` texts, measured against the byte budget in the same
 * statement (item-read-statements.ts; docs/decisions/0010): about 0.9 ms more PostgreSQL time per
 * 1000-row page, the same Node work.
 */
export class PostgresItemStore implements ItemStore {
  private readonly shapes = new CompiledShapes();
  private readonly preparedPerConnection: number;
  private readonly eventsTable: RawBuilder<unknown> | undefined;
  private readonly activityTables: ActivityTables | undefined;
  private readonly holdsSnapshots: boolean;
  private readonly readPool: () => pg.Pool | undefined;

  /** `schema`: the PostgreSQL schema holding the collections' tables. */
  constructor(
    private readonly db: Kysely<unknown>,
    private readonly schema = 'public',
    options: PostgresItemStoreOptions = {},
  ) {
    this.preparedPerConnection = options.preparedPerConnection ?? 0;
    this.eventsTable = options.recordEvents && itemEventsTable(options.recordEvents.systemSchema);
    this.activityTables = options.recordActivity && activityTables(options.recordActivity.systemSchema);
    this.holdsSnapshots = options.holdsSnapshots ?? false;
    this.readPool = options.readPool ?? (() => undefined);
  }

  async list(request: ItemListRequest): Promise<ItemListResult> {
    // A page of no rows with no exact count (`limit=0&meta=estimated_…`): the page's statement could only
    // answer `[]`, so the estimates are all that runs (issue 14: an estimate at the cost of one statement).
    if (request.limit === 0 && !request.count.total && !request.count.filtered) {
      assertWithinBudget(String(EMPTY_PAGE.length), request.maxBytes);
      return {
        json: EMPTY_PAGE,
        ...(request.lastRowFields ? { lastRow: null } : {}),
        ...(await this.estimates(request)),
      };
    }
    const row = (await this.query<ListRow>(this.shapes.list(request, this.schema), request.work))[0]!;
    assertWithinBudget(row.bytes, request.maxBytes);
    return {
      json: row.items!,
      ...(row.total_count === undefined ? {} : { totalCount: Number(row.total_count) }),
      ...(row.filter_count === undefined ? {} : { filterCount: Number(row.filter_count) }),
      ...(request.lastRowFields ? { lastRow: lastRowOf(request, row.last_row ?? null) } : {}),
      ...(request.count.estimatedTotal || request.count.estimatedFiltered
        ? await this.estimates(request)
        : {}),
    };
  }

  private async estimates(request: ItemListRequest): Promise<CountEstimates> {
    if (!request.count.estimatedTotal && !request.count.estimatedFiltered) return {};
    try {
      return await countEstimates(this.db, request, this.schema, (statement) =>
        this.query<{ n: number }>(
          { name: null, text: statement.sql, values: [...statement.parameters] },
          request.work,
        ),
      );
    } catch (error) {
      throw translateReadError(error, request.work !== undefined);
    }
  }

  async get(request: ItemGetRequest): Promise<string | null> {
    const row = (await this.query<ItemRow>(this.shapes.get(request, this.schema), request.work))[0];
    if (row === undefined) return null;
    assertWithinBudget(row.bytes, request.maxBytes);
    return row.item;
  }

  async getMany(request: ItemKeysRequest): Promise<string[]> {
    if (request.keys.length === 0) return [];
    return itemsWithinBudget(
      await this.query<ItemRow>(this.shapes.getMany(request, this.schema), request.work),
      request.maxBytes,
    );
  }

  /** One statement, unprepared: aggregate shapes vary too much to be worth a prepared statement each. */
  async aggregate(request: ItemAggregateRequest): Promise<string> {
    const { sql: text, parameters } = itemAggregateQuery(request, this.schema).compile(compiler);
    const row = (
      await this.query<AggregateRow>({ name: null, text, values: [...parameters] }, request.work)
    )[0]!;
    assertWithinBudget(row.bytes, request.maxBytes);
    return row.items!;
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
  async write<T>(work: (writer: ItemWriter) => Promise<T>, author?: Accountability): Promise<T> {
    const activity = this.activityTables && { tables: this.activityTables, ...(author ? { author } : {}) };
    const request = author?.work;
    const bound = request && setLocalTimeout(this.readPool(), request.kind);
    try {
      return await this.db.transaction().execute(async (trx) => {
        if (bound) await trx.executeQuery(CompiledQuery.raw(bound));
        const writer = new PostgresItemWriter(trx, this.schema, this.eventsTable, activity);
        const result = await work(writer);
        writer.rethrowFailure();
        return result;
      });
    } catch (error) {
      const duringRequest = request !== undefined;
      throw error instanceof FailedStatement
        ? await translateWriteError(error.cause, error.context, this.db, this.schema, duringRequest)
        : await translateWriteError(error, undefined, this.db, this.schema, duringRequest);
    }
  }

  /**
   * A `REPEATABLE READ READ ONLY` transaction whose reads are this store's, so every page of an export sees
   * the rows as they were at its first read (when PostgreSQL takes a repeatable-read snapshot). It holds a
   * pool connection until `close()`, which rolls it back: it wrote nothing.
   */
  async snapshot(work?: DatabaseWork): Promise<ItemSnapshot> {
    if (!this.holdsSnapshots) return liveSnapshot(this);
    const bound = work && setLocalTimeout(this.readPool(), work.kind);
    const trx = await this.db
      .startTransaction()
      .setIsolationLevel('repeatable read')
      .setAccessMode('read only')
      .execute()
      .catch((error: unknown) => {
        throw translateReadError(error, work !== undefined);
      });
    if (bound) {
      await trx.executeQuery(CompiledQuery.raw(bound)).catch(async (error: unknown) => {
        await trx
          .rollback()
          .execute()
          .catch(() => {});
        throw translateReadError(error, true);
      });
    }
    const reads = new PostgresItemStore(trx, this.schema, {
      preparedPerConnection: this.preparedPerConnection,
    });
    let closing: Promise<void> | undefined;
    return {
      list: (request) => reads.list(request),
      close: () => {
        closing ??= trx
          .rollback()
          .execute()
          .catch(() => {});
        return closing;
      },
    };
  }

  /**
   * Runs the statement prepared when it has a name and this store prepares, else as plain text. A plan
   * PostgreSQL refuses because its table changed under it is run once more unprepared, which cannot fail
   * that way (prepared-statement-query.ts).
   */
  private async query<R>(statement: ShapeStatement, work: DatabaseWork | undefined): Promise<R[]> {
    try {
      if (statement.name === null || this.preparedPerConnection === 0)
        return await this.unprepared<R>(statement, work);
      try {
        return await this.prepared<R>(statement.name, statement, work);
      } catch (error) {
        if (!isPlanResultChanged(error)) throw error;
        return await this.unprepared<R>(statement, work);
      }
    } catch (error) {
      throw translateReadError(error, work !== undefined);
    }
  }

  /** On pg's pool, bounded by the work's statement timeout; else (PGlite, a snapshot's transaction) Kysely's. */
  private async unprepared<R>(statement: ShapeStatement, work: DatabaseWork | undefined): Promise<R[]> {
    const pool = this.readPool();
    if (pool === undefined)
      return (await this.db.executeQuery<R>(CompiledQuery.raw(statement.text, statement.values))).rows;
    return this.onConnection(pool, work, { text: statement.text, values: [...statement.values] });
  }

  private prepared<R>(name: string, statement: ShapeStatement, work: DatabaseWork | undefined): Promise<R[]> {
    const query = new PreparedStatementQuery(
      name,
      statement.text,
      statement.values,
      this.preparedPerConnection,
    );
    const pool = this.readPool();
    if (pool === undefined) {
      // Kysely hands `sql` to pg's client.query() as is (see PreparedStatementQuery).
      const plain = CompiledQuery.raw(statement.text, statement.values);
      return this.db
        .executeQuery<R>({ ...plain, sql: query as unknown as string })
        .then((result) => result.rows);
    }
    return this.onConnection(pool, work, query);
  }

  /**
   * One statement on a connection of `pool` bounded by the work's statement timeout, released after it. One
   * async function from checkout to release, awaiting a prepared statement's own promise rather than the
   * thenable pg returns: on the path of every item read, each async step more is a promise and a tick more
   * (bench/NOTES.md §7.7).
   */
  private async onConnection<R>(
    pool: pg.Pool,
    work: DatabaseWork | undefined,
    query: pg.QueryConfig | PreparedStatementQuery,
  ): Promise<R[]> {
    const client = await connectFor(pool, work?.kind);
    try {
      if (query instanceof PreparedStatementQuery) {
        client.query(query);
        return (await query.result).rows as R[];
      }
      return (await client.query(query)).rows as R[];
    } finally {
      client.release();
    }
  }
}

/** The answer of a page of no rows. */
const EMPTY_PAGE = '[]';

/** The `last_row` array of itemListQuery as canonical values by field name. */
function lastRowOf(request: ItemListRequest, lastRow: string | null): StoredItem | null {
  if (lastRow === null || !request.lastRowFields) return null;
  const values = JSON.parse(lastRow) as unknown[];
  return Object.fromEntries(
    request.lastRowFields.map((name, index) => [
      name,
      canonicalValueOf(fieldOrThrow(request.collection, name), values[index]),
    ]),
  );
}

/** A statement as it goes to the driver: SQL text with `$n` placeholders and their values. */
export type CompiledItemQuery = { readonly sql: string; readonly parameters: ReadonlyArray<unknown> };

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
