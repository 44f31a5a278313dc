import type { ItemQuery } from '../../domain/query/item-query.ts';

/** One record of a system collection as answered: its fields by API name, json() extractions by their key. */
export type SystemRecord = Readonly<Record<string, unknown>>;

/** Array indexes PostgreSQL's `#>` reads from a path segment, as the items' json() does. */
const INDEX = /^\d{1,9}$/;

/**
 * The `fields` a caller asked for, out of a full view: `*` is the view as it is (every public field, in
 * its order); names answer in the order asked; `*` beside names or json() entries keeps every field and
 * adds the extractions. The view never holds a secret, so nothing here can reveal one.
 */
export function selectFields(view: SystemRecord, fields: ItemQuery['fields']): SystemRecord {
  if (fields === '*') return view;
  const record: Record<string, unknown> = fields.includes('*') ? { ...view } : {};
  for (const entry of fields) {
    if (entry === '*') continue;
    if (typeof entry === 'string') record[entry] = view[entry];
    else record[entry.key] = valueAtPath(view[entry.field], entry.path);
  }
  return record;
}

/** The value at `path` inside a json value, as the items' json() finds it; null where there is nothing. */
function valueAtPath(json: unknown, path: ReadonlyArray<string>): unknown {
  let value = json;
  for (const segment of path) {
    if (Array.isArray(value)) value = INDEX.test(segment) ? value[Number(segment)] : undefined;
    else if (typeof value === 'object' && value !== null && Object.hasOwn(value, segment)) {
      value = (value as Record<string, unknown>)[segment];
    } else value = undefined;
    if (value === undefined) return null;
  }
  return value ?? null;
}
