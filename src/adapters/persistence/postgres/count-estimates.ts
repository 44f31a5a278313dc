import { type CompiledQuery, type Kysely, sql } from 'kysely';
import type { ItemListRequest } from '../../../application/ports/item-store.ts';
import type { BoundFilterNode } from '../../../domain/query/filter.ts';
import type { CollectionSchema } from '../../../domain/schema/collection-schema.ts';
import { filterSql } from './filter-sql.ts';
import { tableOf, topScope } from './row-scope.ts';

/** The estimates `request.count` asks for, in the shape of ItemListResult. */
export type CountEstimates = { estimatedTotalCount?: number; estimatedFilterCount?: number };

/**
 * The planner's row estimates (docs/decisions/0019), PostgREST's `count=estimated`:
 * - Rows of the whole table: `pg_class.reltuples`, kept by VACUUM and ANALYZE (autovacuum included). A
 *   table never vacuumed nor analyzed has -1 there; then, as with any filter, the planner's estimate,
 *   which scales a default density by the table's size on disk.
 * - Rows matching a filter (the caller's rule, the query's filter): the row estimate of
 *   `EXPLAIN (FORMAT JSON)` of the count's own condition, its values bound parameters like every
 *   statement's. EXPLAIN without ANALYZE plans the statement and runs nothing.
 * Neither reads the table, so both cost the same at a thousand rows and at a million.
 *
 * A small estimate is replaced by a count (PostgREST's switch-over, decision 0071), and so is any estimate
 * of a table never analyzed: the planner's guess is worst there (it takes a table of under ten pages for ten
 * pages, so three rows inserted into a new table are "about 1,270"), and counting up to `EXACT_UP_TO` rows
 * costs what reading one page of the most rows a page may hold does. The count stops one row past it: more
 * rows than that are answered the planner's estimate or, where the planner guessed fewer, `EXACT_UP_TO + 1`,
 * the nearest figure known to be right from below.
 */
export async function countEstimates(
  db: Kysely<unknown>,
  request: ItemListRequest,
  schema: string,
  count: CountStatement,
): Promise<CountEstimates> {
  const estimates: CountEstimates = {};
  const { collection } = request;
  const tuples = await reltuples(db, schema, collection.name);
  const analyzed = tuples !== null && tuples >= 0;
  const estimate = async (filters: ReadonlyArray<BoundFilterNode | null>) => {
    const present = filters.filter((filter) => filter !== null);
    const planned =
      analyzed && present.length === 0
        ? Math.round(tuples)
        : await plannedRows(db, schema, collection, present);
    if (analyzed && planned > EXACT_UP_TO) return planned;
    const [counted] = await count(countedUpTo(db, schema, collection, present, EXACT_UP_TO + 1));
    return counted!.n <= EXACT_UP_TO ? counted!.n : Math.max(planned, counted!.n);
  };
  if (request.count.estimatedTotal) estimates.estimatedTotalCount = await estimate([request.visible]);
  if (request.count.estimatedFiltered) {
    estimates.estimatedFilterCount = await estimate([request.visible, request.filter]);
  }
  return estimates;
}

/**
 * Runs the count that replaces a small estimate as the request's own work: its cost is the caller's filter's,
 * so it is bounded as the page's statement is (docs/api.md §4a).
 */
export type CountStatement = (
  statement: CompiledQuery<{ n: number }>,
) => Promise<ReadonlyArray<{ n: number }>>;

/** The estimates at or below which rows are counted instead (`query.limitMax`'s default: one full page). */
export const EXACT_UP_TO = 1000;

/** `reltuples` of the table; -1 when it was never vacuumed nor analyzed, null when it is gone. */
async function reltuples(db: Kysely<unknown>, schema: string, table: string): Promise<number | null> {
  const { rows } = await sql<{ reltuples: number }>`select c.reltuples::float8 as reltuples
      from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace
      where n.nspname = ${schema} and c.relname = ${table}`.execute(db);
  return rows[0]?.reltuples ?? null;
}

/** The planner's row estimate for the rows of the table matching every filter. */
async function plannedRows(
  db: Kysely<unknown>,
  schema: string,
  collection: CollectionSchema,
  filters: ReadonlyArray<BoundFilterNode>,
): Promise<number> {
  const { rows } = await sql<
    Record<string, unknown>
  >`explain (format json) ${matchingRows(schema, collection, filters)}`.execute(db);
  return planRows(Object.values(rows[0] ?? {})[0]);
}

/** The statement counting the rows of the table matching every filter, up to `bound`. */
function countedUpTo(
  db: Kysely<unknown>,
  schema: string,
  collection: CollectionSchema,
  filters: ReadonlyArray<BoundFilterNode>,
  bound: number,
): CompiledQuery<{ n: number }> {
  return sql<{ n: number }>`select count(*)::int as n
      from (${matchingRows(schema, collection, filters)} limit ${bound}) as matching`.compile(db);
}

function matchingRows(schema: string, collection: CollectionSchema, filters: ReadonlyArray<BoundFilterNode>) {
  const scope = topScope(schema);
  const where =
    filters.length === 0
      ? sql``
      : sql`where ${sql.join(
          filters.map((filter) => filterSql(filter, collection, scope)),
          sql` and `,
        )}`;
  return sql`select 1 from ${tableOf(scope, collection.name)} ${where}`;
}

/** `Plan Rows` of the top plan node; drivers hand the json column parsed or as text. */
function planRows(plan: unknown): number {
  const parsed = typeof plan === 'string' ? (JSON.parse(plan) as unknown) : plan;
  const rows = (parsed as Array<{ Plan?: { 'Plan Rows'?: unknown } }> | undefined)?.[0]?.Plan?.['Plan Rows'];
  if (typeof rows !== 'number') throw new Error('EXPLAIN gave no row estimate');
  return Math.round(rows);
}
