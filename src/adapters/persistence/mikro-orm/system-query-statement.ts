import {
  type AliasedSelectQueryBuilder,
  type Kysely,
  type RawBuilder,
  type SelectQueryBuilder,
  sql,
} from 'kysely';
import type { SystemQuery } from '../../../application/ports/system-query.ts';
import type { CollectionSchema } from '../../../domain/schema/collection-schema.ts';
import { comparable, fieldOrThrow, filterSql } from '../postgres/filter-sql.ts';
import { topScope } from '../postgres/row-scope.ts';
import type { SystemDatabase } from './system-database.ts';
import type { SystemTables } from './system-tables.ts';

/** A system table's rows with its public fields under their API names (and its own columns beside them). */
export type SystemSource = (
  db: Kysely<SystemTables>,
) => SelectQueryBuilder<SystemTables, keyof SystemTables, Record<string, unknown>>;

/** The page's rows as the table holds them, and the counts asked for. */
export type SystemRows<Row> = { rows: Row[]; totalCount?: number; filterCount?: number };

/**
 * A system list query as one statement: the page as a JSON array built by PostgreSQL, and each count as
 * a scalar subquery of the same statement, so that they all see one snapshot. The filter and sort are the
 * items' own SQL (filter-sql.ts) over `source`, whose columns carry the API names; `listOrder` (columns
 * of the table) follows the requested sort, so that pages never overlap. An aggregate over an ordered
 * subquery without joins keeps its order, as the item store's page relies on too.
 */
export async function runSystemQuery<Row>(
  database: SystemDatabase,
  source: SystemSource,
  collection: CollectionSchema,
  listOrder: ReadonlyArray<string>,
  query: SystemQuery,
): Promise<SystemRows<Row>> {
  // The items' SQL qualifies columns by the row's alias, `t0` at the top; system collections have no
  // relations, so the scope's schema is never used.
  const scope = topScope('');
  const where: RawBuilder<boolean> = query.filter
    ? filterSql(query.filter, collection, scope)
    : sql<boolean>`true`;
  const order = sql.join([
    ...query.sort.map(
      ({ field, direction }) =>
        sql`${comparable(fieldOrThrow(collection, field), scope)} ${direction === 'desc' ? sql`desc` : sql`asc`}`,
    ),
    ...listOrder.map((column) => sql.ref(column)),
  ]);
  const row = await database.read(query.work, (db) => {
    const matching = () => db.selectFrom(source(db).as('t0')).where(where);
    let page = matching().selectAll().orderBy(order).offset(query.offset);
    if (query.limit !== null) page = page.limit(query.limit);
    const columns: Array<AliasedSelectQueryBuilder<{ rows: string }, string>> = [
      db
        .selectFrom(page.as('page'))
        .select(sql<string>`coalesce(json_agg(page.*), '[]')::text`.as('rows'))
        .as('rows'),
    ];
    if (query.count.total) {
      columns.push(
        db.selectFrom(source(db).as('t0')).select(sql<string>`count(*)::text`.as('rows')).as('total_count'),
      );
    }
    if (query.count.filtered) {
      columns.push(matching().select(sql<string>`count(*)::text`.as('rows')).as('filter_count'));
    }
    return db.selectNoFrom(columns).executeTakeFirstOrThrow();
  });
  const counts = row as { rows: string; total_count?: string; filter_count?: string };
  return {
    rows: JSON.parse(counts.rows) as Row[],
    ...(counts.total_count === undefined ? {} : { totalCount: Number(counts.total_count) }),
    ...(counts.filter_count === undefined ? {} : { filterCount: Number(counts.filter_count) }),
  };
}
