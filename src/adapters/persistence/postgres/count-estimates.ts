import { type Kysely, sql } from 'kysely';
import type { ItemListRequest } from '../../../application/ports/item-store.ts';
import type { BoundFilterNode } from '../../../domain/query/filter.ts';
import type { CollectionSchema } from '../../../domain/schema/collection-schema.ts';
import { filterSql } from './filter-sql.ts';
import { tableOf, topScope } from './row-scope.ts';

/** The estimates `request.count` asks for, in the shape of ItemListResult. */
export type CountEstimates = { estimatedTotalCount?: number; estimatedFilterCount?: number };

/**
 * The planner's row estimates (docs/decisions/0019), PostgREST's `count=estimated` without its
 * switch-over to an exact count: a caller who wants the exact number asks for it.
 * - Rows of the whole table: `pg_class.reltuples`, kept by VACUUM and ANALYZE (autovacuum included). A
 *   table never vacuumed nor analyzed has -1 there; then, as with any filter, the planner's estimate,
 *   which scales its default density by the table's size on disk.
 * - Rows matching a filter (the caller's rule, the query's filter): the row estimate of
 *   `EXPLAIN (FORMAT JSON)` of the count's own condition, its values bound parameters like every
 *   statement's. EXPLAIN without ANALYZE plans the statement and runs nothing.
 * Neither reads the table, so both cost the same at a thousand rows and at a million.
 */
export async function countEstimates(
  db: Kysely<unknown>,
  request: ItemListRequest,
  schema: string,
): Promise<CountEstimates> {
  const estimates: CountEstimates = {};
  if (request.count.estimatedTotal) {
    estimates.estimatedTotalCount = await estimate(db, schema, request.collection, [request.visible]);
  }
  if (request.count.estimatedFiltered) {
    estimates.estimatedFilterCount = await estimate(db, schema, request.collection, [
      request.visible,
      request.filter,
    ]);
  }
  return estimates;
}

async function estimate(
  db: Kysely<unknown>,
  schema: string,
  collection: CollectionSchema,
  filters: ReadonlyArray<BoundFilterNode | null>,
): Promise<number> {
  const present = filters.filter((filter) => filter !== null);
  if (present.length === 0) {
    const tuples = await reltuples(db, schema, collection.name);
    if (tuples !== null && tuples >= 0) return Math.round(tuples);
  }
  return plannedRows(db, schema, collection, present);
}

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
  const scope = topScope(schema);
  const where =
    filters.length === 0
      ? sql``
      : sql`where ${sql.join(
          filters.map((filter) => filterSql(filter, collection, scope)),
          sql` and `,
        )}`;
  const { rows } = await sql<Record<string, unknown>>`explain (format json) select 1
      from ${tableOf(scope, collection.name)} ${where}`.execute(db);
  return planRows(Object.values(rows[0] ?? {})[0]);
}

/** `Plan Rows` of the top plan node; drivers hand the json column parsed or as text. */
function planRows(plan: unknown): number {
  const parsed = typeof plan === 'string' ? (JSON.parse(plan) as unknown) : plan;
  const rows = (parsed as Array<{ Plan?: { 'Plan Rows'?: unknown } }> | undefined)?.[0]?.Plan?.['Plan Rows'];
  if (typeof rows !== 'number') throw new Error('EXPLAIN gave no row estimate');
  return Math.round(rows);
}
