import { type RawBuilder, sql } from 'kysely';
import type { RelationalHop } from '../../../domain/query/relational-hop.ts';
import { collectionId } from './collection-ids.ts';
import { columnOf, type RowScope, tableOf } from './row-scope.ts';

/**
 * The FROM clause and the correlation of a subquery over the rows a hop arrives at: `inner` is the
 * subquery's scope, `outer` the row the hop leaves from. Many-to-one: the row whose referred column holds
 * the outer row's foreign key; one-to-many: the rows whose foreign key holds the outer row's referred
 * column. Plain columns on both sides, so that an index on the foreign key serves the one-to-many side.
 */
export function hopSource(hop: RelationalHop, outer: RowScope, inner: RowScope): RawBuilder<unknown> {
  const { field, relatedField } = hop.relation;
  const join =
    hop.direction === 'many-to-one'
      ? sql`${columnOf(inner, relatedField)} = ${columnOf(outer, field)}`
      : sql`${columnOf(inner, field)} = ${columnOf(outer, relatedField)}`;
  return sql`from ${tableOf(inner, hop.collection.name)} where ${join}`;
}

/** What of a hop goes into a statement's text (`hopSource`), appended to a compiled shape's key. */
export function hopShape(hop: RelationalHop, key: string[]): void {
  const { field, relatedField } = hop.relation;
  key.push(
    hop.direction,
    String(collectionId(hop.collection)),
    String(field.length),
    field,
    String(relatedField.length),
    relatedField,
  );
}
