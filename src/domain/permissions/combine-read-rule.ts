import type { BoundFilterNode } from '../query/filter.ts';
import type { CollectionSchema } from '../schema/collection-schema.ts';
import { filterKey, matchesNoRow, unionOfFilters } from './filter-union.ts';
import type { ReadRule } from './read-rule.ts';

/** One read permission as the policy needs it: its row filter parsed and bound, its field list as stored. */
export type ReadGrant = {
  /** null = every row. */
  readonly rows: BoundFilterNode | null;
  /** Field names or `['*']`; null or empty = none. */
  readonly fields: ReadonlyArray<string> | null;
};

/**
 * Combines the read permissions of one role for one collection with OR (docs/api.md §6) into the rule the read
 * side applies; null when they grant nothing.
 *
 * A permission that shows no field of the collection (no fields, only unknown names, or a filter matching
 * no row) is left out altogether: it would otherwise make rows visible — and counted — on which nothing
 * may be read.
 *
 * Each field's condition is the OR of the row filters of the permissions granting it, so a field appears
 * only on rows where some single permission shows it (see ReadRule). It is null when it adds nothing to
 * `rows`: the same union, or a granting permission that covers every row.
 */
export function combineReadRule(
  grants: ReadonlyArray<ReadGrant>,
  collection: CollectionSchema,
): ReadRule | null {
  const effective = grants
    // A union of one: the grant's own filter, simplified like the unions below so that they compare.
    .map((grant) => ({ rows: unionOfFilters([grant.rows]), fields: grantedFields(grant.fields, collection) }))
    .filter((grant) => grant.fields.size > 0 && !(grant.rows !== null && matchesNoRow(grant.rows)));
  if (effective.length === 0) return null;

  const rows = unionOfFilters(effective.map((grant) => grant.rows));
  const rowsKey = filterKey(rows);
  const fields = new Map<string, BoundFilterNode | null>();
  // Collection order, so `*` lists the fields the way the table has them.
  for (const { name } of collection.fields) {
    const granting = effective.filter((grant) => grant.fields.has(name));
    if (granting.length === 0) continue;
    const condition = unionOfFilters(granting.map((grant) => grant.rows));
    fields.set(name, filterKey(condition) === rowsKey ? null : condition);
  }
  return { rows, fields };
}

/** The collection's fields a permission names; `*` is all of them, names the collection lacks are ignored. */
function grantedFields(names: ReadonlyArray<string> | null, collection: CollectionSchema): Set<string> {
  if (names === null) return new Set();
  if (names.includes('*')) return new Set(collection.fields.map((field) => field.name));
  const known = new Set(collection.fields.map((field) => field.name));
  return new Set(names.filter((name) => known.has(name)));
}

/** `admin_access` bypasses every permission (docs/api.md §6): every row, every field, no condition. */
export function adminReadRule(collection: CollectionSchema): ReadRule {
  return {
    rows: null,
    fields: new Map<string, BoundFilterNode | null>(collection.fields.map((field) => [field.name, null])),
  };
}
