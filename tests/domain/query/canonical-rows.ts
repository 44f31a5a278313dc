import { coerceValue } from '../../../src/domain/query/coerce-value.ts';
import type { ScalarValue } from '../../../src/domain/query/filter.ts';
import type { CollectionSchema } from '../../../src/domain/schema/collection-schema.ts';

/** Rows written as a client would, turned into what the database holds (filter.ts canonical values). */
export function canonicalRows(
  collection: CollectionSchema,
  rows: ReadonlyArray<Readonly<Record<string, unknown>>>,
): Array<Record<string, ScalarValue | null>> {
  return rows.map((row) =>
    Object.fromEntries(
      collection.fields.map((field) => {
        const raw = row[field.name];
        if (raw === null || raw === undefined) return [field.name, null];
        return [field.name, field.type === 'unknown' ? String(raw) : coerceValue(field, raw)];
      }),
    ),
  );
}
