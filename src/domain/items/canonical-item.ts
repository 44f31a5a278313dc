import { canonicalJson } from '../query/canonical-json.ts';
import type { ScalarValue } from '../query/filter.ts';
import type { CollectionSchema } from '../schema/collection-schema.ts';

/** A row as canonical values (filter.ts, ScalarValue) or null; json fields hold their JSON text. */
export type CanonicalItem = Readonly<Record<string, ScalarValue | null>>;

/**
 * The item with its json texts in canonical form (keys in jsonb order, no spaces), which is what json
 * filter operands are compared with. A store may hand back PostgreSQL's own rendering (`{"a": 1}`);
 * re-canonicalizing here keeps `_eq` on json fields exact whichever way the text was produced. Text that
 * is not JSON is left as it is. Other values are already canonical.
 */
export function withCanonicalJson(item: CanonicalItem, collection: CollectionSchema): CanonicalItem {
  let copy: Record<string, ScalarValue | null> | null = null;
  for (const field of collection.fields) {
    if (field.type !== 'json' || !Object.hasOwn(item, field.name)) continue;
    const text = item[field.name];
    if (typeof text !== 'string') continue;
    const canonical = canonicalText(text);
    if (canonical === null || canonical === text) continue;
    copy ??= Object.fromEntries(Object.entries(item));
    Object.defineProperty(copy, field.name, { value: canonical, enumerable: true, writable: true });
  }
  return copy ?? item;
}

function canonicalText(text: string): string | null {
  try {
    return canonicalJson(JSON.parse(text));
  } catch {
    return null;
  }
}
