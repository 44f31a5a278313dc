import { type RawBuilder, sql } from 'kysely';
import type { NestedRead, SelectedField } from '../../../application/ports/item-store.ts';
import type { BoundFilterNode } from '../../../domain/query/filter.ts';
import type { CollectionSchema, FieldSchema } from '../../../domain/schema/collection-schema.ts';
import { fieldOrThrow, filterSql } from './filter-sql.ts';
import { jsonValueOf } from './json-value-sql.ts';
import { orderBy } from './order-by-sql.ts';
import { hopSource } from './relational-hop-sql.ts';
import { columnOf, type RowScope, relatedScope } from './row-scope.ts';

/**
 * The selected fields of the scope's row in `select` order, named as themselves, each formatted for JSON and
 * masked to null where its `visibleWhen` does not hold. An empty selection is legal SQL and yields `{}` per
 * row. A `json` selection is the value at its path (`#>`, on json and jsonb alike: null where the path leads
 * nowhere), named by its key; the path is one bound text[] parameter, never SQL text. A `nested` one is a
 * correlated subquery building the related rows' JSON (`nestedReadSql`).
 */
export function projection(
  select: ReadonlyArray<SelectedField>,
  collection: CollectionSchema,
  scope: RowScope,
): RawBuilder<unknown> {
  return sql.join(
    select.map((selected) => {
      const value = selectedValue(selected, collection, scope);
      const shown = selected.visibleWhen
        ? sql`case when ${filterSql(selected.visibleWhen, collection, scope)} then ${value} end`
        : value;
      return sql`${shown} as ${sql.id(selected.json ? selected.json.key : selected.field)}`;
    }),
  );
}

function selectedValue(
  { field, json, nested }: SelectedField,
  collection: CollectionSchema,
  scope: RowScope,
): RawBuilder<unknown> {
  if (json) return sql`(${columnOf(scope, field)} #> ${[...json.path]}::text[])`;
  if (nested) return nestedReadSql(nested, scope);
  return jsonValueOf(fieldOrThrow(collection, field), columnOf(scope, field));
}

/**
 * A relation expanded, as a json value built by PostgreSQL in the same statement (no second round trip):
 * - many-to-one: the one related row the caller may read as an object, or null (the scalar subquery finds
 *   no row when the key is null, its row is missing, or outside `visible`);
 * - one-to-many: the related rows the caller may read, filtered, ordered (primary key last), cut by limit
 *   and offset, as an array of objects or of their primary keys; `[]` when none. The aggregate over the
 *   ordered subquery keeps its order, as the page's aggregate does (item-read-statements.ts).
 *   A correlated subquery per row rather than a lateral join: the planner runs both the same way (an index
 *   scan on the foreign key per parent row when there is an index); measured on PostgreSQL 15, 100 parents
 *   of 10,000 with 10 of 100,000 children each, within noise of each other (3.3–3.6 ms per statement).
 * Bound values come in this order: the nested selection's, `visible`'s, then (one-to-many) `filter`'s, the
 * sort's, the limit (when there is one) and the offset — the order compiled-shapes.ts walks them in.
 */
function nestedReadSql(nested: NestedRead, outer: RowScope): RawBuilder<unknown> {
  const { hop } = nested;
  const inner = relatedScope(outer);
  const source = sql`${hopSource(hop, outer, inner)}${and(nested.visible, hop.collection, inner)}`;
  if (hop.direction === 'many-to-one') {
    // One row at most while the referred column is unique; `limit 1` keeps it so if a schema changed by
    // hand (the constraint dropped) has not been re-read yet, rather than failing the statement.
    return sql`(select row_to_json(item.*)
      from (select ${projection(nested.select, hop.collection, inner)} ${source} limit 1) as item)`;
  }
  const rows = sql`${source}${and(nested.filter ?? null, hop.collection, inner)}
    ${orderBy(nested.sort ?? [], hop.collection, inner)}
    ${nested.limit === undefined || nested.limit === null ? sql`` : sql`limit ${nested.limit}`}
    offset ${nested.offset ?? 0}`;
  if (nested.keysOnly) {
    const key = primaryKeyOf(hop.collection);
    return jsonArray(
      sql`to_json(item.key)::text`,
      sql`select ${jsonValueOf(key, columnOf(inner, key.name))} as key ${rows}`,
    );
  }
  return jsonArray(
    sql`row_to_json(item.*)::text`,
    sql`select ${projection(nested.select, hop.collection, inner)} ${rows}`,
  );
}

/**
 * The JSON array of `element` (a JSON text over the row `item`) for each row of `rows`, in their order,
 * written as the page itself is (`[a,b]`, no spaces: `json_agg` would write `[a, b]`), `[]` when none.
 */
function jsonArray(element: RawBuilder<unknown>, rows: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`coalesce((select ('[' || string_agg(${element}, ',') || ']')::json
    from (${rows}) as item), '[]'::json)`;
}

function and(
  filter: BoundFilterNode | null,
  collection: CollectionSchema,
  scope: RowScope,
): RawBuilder<unknown> {
  return filter === null ? sql`` : sql` and ${filterSql(filter, collection, scope)}`;
}

export function primaryKeyOf(collection: CollectionSchema): FieldSchema {
  if (collection.primaryKey === null) {
    throw new Error(`Collection "${collection.name}" has no single-column primary key to get items by`);
  }
  return fieldOrThrow(collection, collection.primaryKey);
}
