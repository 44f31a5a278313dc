import { type RawBuilder, sql } from 'kysely';
import type {
  ItemGetRequest,
  ItemKeysRequest,
  ItemListRequest,
} from '../../../application/ports/item-store.ts';
import { responseTooLarge } from '../../../domain/errors.ts';
import { canonicalValueSql } from './canonical-value-sql.ts';
import { parameterTypeOf } from './column-types.ts';
import { comparable, conjunction, fieldOrThrow, filterSql } from './filter-sql.ts';
import { orderBy } from './order-by-sql.ts';
import { primaryKeyOf, projection } from './projection-sql.ts';
import { type RowScope, rowAlias, tableOf, topScope } from './row-scope.ts';

/*
 * The read statements of the item store, each of which measures its answer against the request's byte
 * budget in PostgreSQL: `bytes` is the size of the JSON text the answer would be (octet_length: UTF-8
 * bytes in a UTF-8 database), and the text itself comes back only when it fits. So a page over the budget
 * costs the server a number, not its text; PostgreSQL itself never builds more than the budget of it
 * either, as the running total stops the aggregate at the budget.
 *
 * count(*) and the sums are int8: a string from pg and from PGlite as configured (embedded-postgres.ts).
 */

/**
 * `items` is null when `bytes` is over the budget. `last_row`, with `lastRowFields`: the JSON array of
 * those fields' canonical values on the last row of a full page, else null.
 */
export type ListRow = {
  items: string | null;
  bytes: string;
  total_count?: string;
  filter_count?: string;
  last_row?: string | null;
};

/** One item's JSON object text, or null when `bytes` (its size) is over the budget. */
export type ItemRow = { item: string | null; bytes: string };

/** Refuses an answer whose measured size is over the budget, if there is one. */
export function assertWithinBudget(bytes: string, maxBytes: number | undefined): void {
  const size = Number(bytes);
  if (maxBytes !== undefined && size > maxBytes) throw responseTooLarge(size, maxBytes);
}

/** The budget as a bound int8; none is the largest number every driver binds exactly. */
function budget(maxBytes: number | undefined): RawBuilder<unknown> {
  return sql`${maxBytes ?? Number.MAX_SAFE_INTEGER}::int8`;
}

/** One statement: the page as JSON array text, its size, and the counts `request.count` asks for. */
export function itemListQuery(request: ItemListRequest, schema: string): RawBuilder<ListRow> {
  const scope = topScope(schema);
  const table = tableOf(scope, request.collection.name);
  const where = conjunction([request.visible, request.filter], request.collection, scope);
  const pageWhere = request.after
    ? conjunction([request.visible, request.filter, request.after], request.collection, scope)
    : where;
  // The page's rows keep the table's alias, so the projection's correlated subqueries (nested reads) read
  // the same names on either level.
  const page = sql`select * from ${table} ${pageWhere} ${orderBy(request.sort, request.collection, scope)}
      ${request.limit === null ? sql`` : sql`limit ${request.limit}`} offset ${request.offset}`;
  const maxBytes = budget(request.maxBytes);
  const lastRow = request.lastRowFields && request.limit !== null ? request.lastRowFields : null;
  // Each row's text is measured once: `through` is the size of `[` and the items up to this one with
  // their commas, so the whole array is the last `through` plus the closing `]` (`[]` when empty). The
  // aggregate keeps the items while the array so far would still fit.
  // A window and an aggregate over an ordered subquery without joins keep its order (PostgREST relies on
  // the same); so does the array of keysets whose last element is the last row's. None of the aggregates
  // may have an ORDER BY of its own: the planner would sort the input for all of them by it.
  // The formatting runs on the page only: the innermost level sorts and cuts whole rows first.
  const formatted = lastRow
    ? keysetFormatted(request, lastRow, page, scope)
    : sql`select row_to_json(item.*)::text as json
        from (select ${projection(request.select, request.collection, scope)} from (${page}) as ${rowAlias(scope)}) as item`;
  const measured = sql`select json, ${lastRow ? sql`last_row,` : sql``}
        sum(octet_length(json) + 1) over (rows between unbounded preceding and current row) as through
      from (${formatted}) as formatted`;
  const columns = [sql`page.items`, sql`page.bytes`];
  // Counts are scalar subqueries of the same statement, so they see the same snapshot as the page.
  if (request.count.total) {
    const visible = conjunction([request.visible], request.collection, scope);
    columns.push(sql`(select count(*) from ${table} ${visible}) as total_count`);
  }
  if (request.count.filtered) columns.push(sql`(select count(*) from ${table} ${where}) as filter_count`);
  if (lastRow) columns.push(sql`page.last_row`);
  return sql<ListRow>`select ${sql.join(columns)}
    from (select
        case when coalesce(max(through), 1) + 1 <= ${maxBytes}
          then '[' || coalesce(string_agg(json, ',') filter (where through + 1 <= ${maxBytes}), '') || ']'
        end as items,
        coalesce(max(through), 1) + 1 as bytes
        ${lastRow ? sql`, case when count(*) = ${request.limit} then (array_agg(last_row))[count(*)] end as last_row` : sql``}
      from (${measured}) as measured) as page`;
}

/**
 * The page's rows formatted as `itemListQuery` does, each beside the canonical values of `fields` (the
 * next cursor's keyset, shown or not). The item is a correlated subquery, as in `itemKeysQuery`, so that
 * its columns never meet the row's own.
 */
function keysetFormatted(
  request: ItemListRequest,
  fields: ReadonlyArray<string>,
  page: RawBuilder<unknown>,
  scope: RowScope,
): RawBuilder<unknown> {
  const { collection } = request;
  // json_build_array takes at most 100 arguments, and a sort may name every column: an array of json has no bound.
  const values = fields.map((name) => sql`to_json(${canonicalValueSql(fieldOrThrow(collection, name))})`);
  return sql`select (select row_to_json(item.*) from (select ${projection(request.select, collection, scope)}) as item)::text as json,
      array_to_json(array[${sql.join(values)}]::json[])::text as last_row
    from (${page}) as ${rowAlias(scope)}`;
}

/** One statement: the visible row with the key as JSON object text and its size, or no row. */
export function itemGetQuery(request: ItemGetRequest, schema: string): RawBuilder<ItemRow> {
  const { collection } = request;
  const scope = topScope(schema);
  const key = primaryKeyOf(collection);
  const matchesKey = sql`${comparable(key, scope)} = ${request.id}::${sql.raw(parameterTypeOf(key))}`;
  const visible = request.visible ? sql` and ${filterSql(request.visible, collection, scope)}` : sql``;
  return sql<ItemRow>`select case when octet_length(json) <= ${budget(request.maxBytes)} then json end as item,
      octet_length(json) as bytes
    from (select row_to_json(item.*)::text as json
      from (select ${projection(request.select, collection, scope)} from ${tableOf(scope, collection.name)}
        where ${matchesKey}${visible}) as item) as formatted`;
}

/**
 * One statement: a row per wanted key that has a visible row, as JSON object text, in the order of the
 * keys. The table is read in its own subquery, so that its columns never meet the names of the key
 * list (and the projection and the filter qualify them by the row's alias anyway: row-scope.ts); each
 * row's projection is a correlated subquery so that the key it is joined on is not part of the item.
 *
 * `bytes` is the size of the JSON array of the items up to this one (`[`, commas and `]` included), so the
 * last row's is the whole answer's; an item past the budget comes back as null.
 */
export function itemKeysQuery(request: ItemKeysRequest, schema: string): RawBuilder<ItemRow> {
  const { collection } = request;
  const scope = topScope(schema);
  const key = primaryKeyOf(collection);
  const keyType = sql.raw(parameterTypeOf(key));
  const keys = sql`${[...request.keys]}::${keyType}[]`;
  const visible = request.visible ? sql` and ${filterSql(request.visible, collection, scope)}` : sql``;
  return sql<ItemRow>`select case when through + 1 <= ${budget(request.maxBytes)} then item end as item,
      through + 1 as bytes
    from (select found.item, wanted.position,
        sum(octet_length(found.item) + 1) over (order by wanted.position rows between unbounded preceding and current row) as through
      from unnest(${keys}) with ordinality as wanted (key, position)
      join (select ${comparable(key, scope)} as key,
          (select row_to_json(item.*) from (select ${projection(request.select, collection, scope)}) as item)::text as item
        from ${tableOf(scope, collection.name)}
        where ${comparable(key, scope)} = any (${keys})${visible}) as found
      on found.key = wanted.key) as measured
    order by position`;
}

/** The items of `itemKeysQuery`'s rows, or the refusal when the last one says the whole is over budget. */
export function itemsWithinBudget(rows: ReadonlyArray<ItemRow>, maxBytes: number | undefined): string[] {
  const last = rows.at(-1);
  if (last) assertWithinBudget(last.bytes, maxBytes);
  return rows.map((row) => row.item!);
}
