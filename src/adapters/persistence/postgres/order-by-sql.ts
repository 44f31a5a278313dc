import { type RawBuilder, sql } from 'kysely';
import type { SortKey } from '../../../application/ports/item-store.ts';
import type { CollectionSchema } from '../../../domain/schema/collection-schema.ts';
import { comparable, fieldOrThrow, filterSql } from './filter-sql.ts';
import { hopSource } from './relational-hop-sql.ts';
import { type RowScope, relatedScope } from './row-scope.ts';

/**
 * The requested order with PostgreSQL's null placement (last ascending, first descending), then the primary
 * key, so that pages never overlap or skip rows with equal sort values.
 */
export function orderBy(
  sort: ReadonlyArray<SortKey>,
  collection: CollectionSchema,
  scope: RowScope,
): RawBuilder<unknown> {
  const keys = sort.map((key) => ({ value: sortValue(key, collection, scope), direction: key.direction }));
  const { primaryKey } = collection;
  if (primaryKey !== null && !sort.some((key) => key.field === primaryKey && !isThrough(key))) {
    keys.push({ value: comparable(fieldOrThrow(collection, primaryKey), scope), direction: 'asc' });
  }
  if (keys.length === 0) return sql``;
  return sql`order by ${sql.join(
    keys.map(({ value, direction }) => sql`${value} ${direction === 'desc' ? sql`desc` : sql`asc`}`),
  )}`;
}

export function isThrough(key: SortKey): boolean {
  return key.through !== undefined && key.through.length > 0;
}

function sortValue(key: SortKey, collection: CollectionSchema, scope: RowScope): RawBuilder<unknown> {
  if (!key.through || key.through.length === 0) return comparable(fieldOrThrow(collection, key.field), scope);
  return throughValue(key.through, 0, key.field, scope);
}

/**
 * The sort field read through many-to-one hops, one correlated scalar subquery per hop: null where a key is
 * null, its row missing, or outside the caller's read rule on that collection, so such a row sorts as a null
 * would. The values each hop binds come after those of the hops past it (compiled-shapes.ts). `limit 1`
 * as in a nested many-to-one read (projection-sql.ts).
 */
function throughValue(
  through: NonNullable<SortKey['through']>,
  index: number,
  field: string,
  outer: RowScope,
): RawBuilder<unknown> {
  const { hop, visible } = through[index]!;
  if (hop.direction !== 'many-to-one') throw new Error('A sort goes through many-to-one relations only');
  const inner = relatedScope(outer);
  const value =
    index === through.length - 1
      ? comparable(fieldOrThrow(hop.collection, field), inner)
      : throughValue(through, index + 1, field, inner);
  const shown = visible ? sql` and ${filterSql(visible, hop.collection, inner)}` : sql``;
  return sql`(select ${value} ${hopSource(hop, outer, inner)}${shown} limit 1)`;
}
