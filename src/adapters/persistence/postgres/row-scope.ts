import { type RawBuilder, sql } from 'kysely';

/**
 * Where an expression reads its collection's row: the PostgreSQL schema of the tables, and how many
 * relational hops the row is from the statement's own collection. Each level's row has the alias `t<depth>`
 * (`t0` for the collection read, `t1` inside a subquery over a related one, …), and every column is
 * qualified by it: a subquery over a related collection — the same table, for a self-referencing relation —
 * then always tells its own row's columns from the outer row's it correlates with.
 */
export type RowScope = { readonly schema: string; readonly depth: number };

/** The scope of the statement's own collection. */
export function topScope(schema: string): RowScope {
  return { schema, depth: 0 };
}

/** The scope of a subquery over a collection one hop away from `outer`'s. */
export function relatedScope(outer: RowScope): RowScope {
  return { schema: outer.schema, depth: outer.depth + 1 };
}

export function rowAlias(scope: RowScope): RawBuilder<unknown> {
  return sql.id(`t${scope.depth}`);
}

/** A column of the scope's row. */
export function columnOf(scope: RowScope, name: string): RawBuilder<unknown> {
  return sql.id(`t${scope.depth}`, name);
}

/** The collection's table aliased as the scope's row, for a FROM clause. */
export function tableOf(scope: RowScope, collection: string): RawBuilder<unknown> {
  return sql`${sql.id(scope.schema, collection)} as ${rowAlias(scope)}`;
}
