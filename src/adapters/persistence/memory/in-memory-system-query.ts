import type { SystemPage, SystemQuery } from '../../../application/ports/system-query.ts';
import { matchesFilter } from '../../../domain/query/evaluate-filter.ts';
import type { ScalarValue } from '../../../domain/query/filter.ts';
import { type CollectionSchema, fieldOf } from '../../../domain/schema/collection-schema.ts';
import { compareNullsLast } from './compare-nulls-last.ts';

/** A record's public fields in their canonical forms (filter.ts), as filters and sorting compare them. */
export type CanonicalRecord = Readonly<Record<string, ScalarValue | null>>;

/**
 * A system list query answered in process, as the SQL statement answers it: filter, count, sort (nulls
 * last ascending, first descending), page. `records` must come in the table's list order already: the
 * sort is stable, so that order breaks the ties, as it does in SQL.
 */
export function answerSystemQuery<T>(
  records: ReadonlyArray<T>,
  canonical: (record: T) => CanonicalRecord,
  collection: CollectionSchema,
  query: SystemQuery,
): SystemPage<T> {
  const rows = records.map((record) => ({ record, values: canonical(record) }));
  const { filter } = query;
  const matching = filter ? rows.filter((row) => matchesFilter(filter, row.values, collection)) : rows;
  const sorted = [...matching].sort((a, b) => {
    for (const { field: name, direction } of query.sort) {
      const field = fieldOf(collection, name);
      if (!field) throw new Error(`Field "${name}" is not in collection "${collection.name}"`);
      const order = compareNullsLast(field.type, a.values[name] ?? null, b.values[name] ?? null);
      if (order !== 0) return direction === 'desc' ? -order : order;
    }
    return 0;
  });
  const end = query.limit === null ? undefined : query.offset + query.limit;
  return {
    records: sorted.slice(query.offset, end).map((row) => row.record),
    ...(query.count.total ? { totalCount: records.length } : {}),
    ...(query.count.filtered ? { filterCount: matching.length } : {}),
  };
}
