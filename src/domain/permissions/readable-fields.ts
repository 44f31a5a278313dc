import type { Accountability } from '../accountability.ts';
import type { BoundFilterNode, FilterNode } from '../query/filter.ts';
import type { SelectedName } from '../query/item-query.ts';
import type { JsonPathSelection } from '../query/json-path.ts';
import type { CollectionSchema } from '../schema/collection-schema.ts';
import { fieldsNamedBy } from './filter-fields.ts';
import type { ReadRule } from './read-rule.ts';
import { refusal } from './refusal.ts';

/**
 * A field to return and the condition under which its value is shown (else it reads as null); with
 * `json`, a value inside it answered under its own key.
 */
export type ProjectedField = {
  readonly field: string;
  readonly visibleWhen: BoundFilterNode | null;
  readonly json?: { readonly path: ReadonlyArray<string>; readonly key: string };
};

/** Every field the rule lets the caller read, on some row at least, in collection order. */
export function allowedFields(rule: ReadRule): string[] {
  return [...rule.fields.keys()];
}

/**
 * The fields a read returns (docs/api.md §4): `*` silently narrows to what the rule allows; an explicitly
 * requested field the rule does not allow is refused, naming it. A field shown on some rows only is
 * allowed: on the other rows it reads as null, which reveals nothing. `json(field, path)` is the field
 * itself as far as permissions go: refused and masked exactly as it is.
 */
export function projectFields(
  caller: Accountability,
  rule: ReadRule,
  requested: ReadonlyArray<SelectedName> | '*',
): ReadonlyArray<ProjectedField> {
  if (requested === '*') return everyAllowedField(rule);
  for (const entry of requested) {
    const field = typeof entry === 'string' ? entry : entry.field;
    if (field !== '*' && !rule.fields.has(field)) throw refusal(caller, field);
  }
  if (requested.includes('*')) {
    const extracted = requested.flatMap((entry) =>
      typeof entry === 'string' ? [] : [extraction(rule, entry)],
    );
    const every = everyAllowedField(rule);
    return extracted.length === 0 ? every : [...every, ...extracted];
  }
  const projected: ProjectedField[] = [];
  for (const entry of new Set(requested)) {
    projected.push(
      typeof entry === 'string'
        ? { field: entry, visibleWhen: rule.fields.get(entry) ?? null }
        : extraction(rule, entry),
    );
  }
  return projected;
}

function extraction(rule: ReadRule, selection: JsonPathSelection): ProjectedField {
  return {
    field: selection.field,
    visibleWhen: rule.fields.get(selection.field) ?? null,
    json: { path: selection.path, key: selection.key },
  };
}

/**
 * `*`, most reads' projection, once per rule: rules are memoized until their schema or permissions change
 * (application/items/read-rules.ts), and a changed one is a new object, so this memo follows theirs.
 */
const wildcardProjections = new WeakMap<ReadRule, ReadonlyArray<ProjectedField>>();

function everyAllowedField(rule: ReadRule): ReadonlyArray<ProjectedField> {
  let projection = wildcardProjections.get(rule);
  if (!projection) {
    projection = allowedFields(rule).map((field) => ({ field, visibleWhen: rule.fields.get(field) ?? null }));
    wildcardProjections.set(rule, projection);
  }
  return projection;
}

/**
 * Fields the caller may filter, sort and search on: those readable on every row the rule shows.
 *
 * A field shown on some rows only is left out on purpose. Filtering or sorting on it would evaluate its
 * hidden values too (sorting orders rows by them; `_null` would tell a hidden value from a real null), and
 * the filter language has no NOT to say "treat it as null where hidden". Refusing is the simple rule
 * that cannot leak; it only bites when OR-combined permissions grant different fields.
 */
export function queryableFields(rule: ReadRule): string[] {
  return [...rule.fields].filter(([, condition]) => condition === null).map(([field]) => field);
}

/** Whether `field` is one of `queryableFields(rule)`. */
export function isQueryable(rule: ReadRule, field: string): boolean {
  return rule.fields.get(field) === null;
}

/** docs/api.md §4: filtering, sorting or searching on a field the caller may not query is refused, naming it. */
export function assertFieldsQueryable(
  caller: Accountability,
  rule: ReadRule,
  fields: Iterable<string>,
): void {
  for (const field of fields) {
    if (!isQueryable(rule, field)) throw refusal(caller, field);
  }
}

/**
 * Reading, updating or deleting an item by its key is a filter on the key: when the caller may not query
 * the key field, whether a row has a key would tell its hidden value (`GET /items/tags/17` answering 200
 * or 404), so every keyed request is refused naming the key, whatever key it names (docs/api.md §4).
 */
export function assertKeyQueryable(
  caller: Accountability,
  rule: ReadRule,
  collection: Pick<CollectionSchema, 'primaryKey'>,
): void {
  if (collection.primaryKey !== null) assertFieldsQueryable(caller, rule, [collection.primaryKey]);
}

/** `assertFieldsQueryable` for every field a parsed filter names. */
export function assertFilterQueryable(caller: Accountability, rule: ReadRule, filter: FilterNode): void {
  assertFieldsQueryable(caller, rule, fieldsNamedBy(filter));
}
