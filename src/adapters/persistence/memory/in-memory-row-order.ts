import type { SortKey } from '../../../application/ports/item-store.ts';
import { compareValues } from '../../../domain/query/compare-values.ts';
import type { ScalarValue } from '../../../domain/query/filter.ts';
import type { CollectionSchema, FieldSchema } from '../../../domain/schema/collection-schema.ts';
import { fieldOf } from '../../../domain/schema/collection-schema.ts';
import type { RelatedRows } from './in-memory-related-rows.ts';
import type { StoredRow } from './in-memory-schema.ts';

type OrderKey = {
  readonly field: FieldSchema;
  readonly sign: number;
  readonly valueOf: (row: StoredRow) => ScalarValue | null;
};

/**
 * Rows in PostgreSQL's order: nulls last ascending and first descending; ties end on the primary key
 * ascending (a table without one keeps insertion order), so that keyset pages are well defined. Text
 * orders by code point, PostgreSQL's "C" collation. A key `through` many-to-one hops reads the field
 * of the row the last hop arrives at, and null where a hop finds no row or one the caller may not see,
 * as the SQL store's correlated subquery does.
 */
export function sortRows(
  rows: ReadonlyArray<StoredRow>,
  sort: ReadonlyArray<SortKey>,
  collection: CollectionSchema,
  related: RelatedRows,
): StoredRow[] {
  const { primaryKey } = collection;
  const order: ReadonlyArray<SortKey> =
    primaryKey !== null && !sort.some((key) => !key.through?.length && key.field === primaryKey)
      ? [...sort, { field: primaryKey, direction: 'asc' }]
      : sort;
  const keys = order.map((key) => orderKey(key, collection, related));
  const decorated = rows.map((row) => ({ row, values: keys.map((key) => key.valueOf(row)) }));
  decorated.sort((a, b) => {
    for (const [index, { field, sign }] of keys.entries()) {
      const valueA = a.values[index] ?? null;
      const valueB = b.values[index] ?? null;
      if (valueA === null || valueB === null) {
        if (valueA === valueB) continue;
        // Null sorts as the largest value: last ascending, first descending.
        return (valueA === null ? 1 : -1) * sign;
      }
      const order = compareValues(field.type, valueA, valueB);
      if (order !== 0) return order * sign;
    }
    return 0;
  });
  return decorated.map(({ row }) => row);
}

function orderKey(key: SortKey, collection: CollectionSchema, related: RelatedRows): OrderKey {
  const hops = key.through ?? [];
  const target = hops.at(-1)?.hop.collection ?? collection;
  const field = fieldOf(target, key.field);
  if (!field)
    throw new Error(`ItemStore request sorts by a field "${key.field}" that "${target.name}" does not have`);
  const sign = key.direction === 'asc' ? 1 : -1;
  return {
    field,
    sign,
    valueOf: (row) => {
      let current: StoredRow | undefined = row;
      for (const { hop, visible } of hops) {
        current = related
          .of(hop, current)
          .find((candidate) => related.matches(visible, candidate, hop.collection));
        if (current === undefined) return null;
      }
      return current[field.name] ?? null;
    },
  };
}
