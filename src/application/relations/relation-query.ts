import type { Accountability } from '../../domain/accountability.ts';
import { bindDynamicValues } from '../../domain/query/bind-dynamic-values.ts';
import { canonicalJson } from '../../domain/query/canonical-json.ts';
import { compareCodePoints } from '../../domain/query/code-point-order.ts';
import { allOf } from '../../domain/query/combine-filters.ts';
import { compareValues } from '../../domain/query/compare-values.ts';
import { matchesFilter } from '../../domain/query/evaluate-filter.ts';
import type { BoundFilterNode } from '../../domain/query/filter.ts';
import { invalidQuery } from '../../domain/query/invalid-query.ts';
import { parseItemQuery, type QueryLimits, type RawItemQuery } from '../../domain/query/parse-item-query.ts';
import { searchFilter } from '../../domain/query/search-filter.ts';
import type { CollectionSchema } from '../../domain/schema/collection-schema.ts';
import { selectFields } from '../system-queries/select-fields.ts';
import { systemField } from '../system-queries/system-collections.ts';
import type { RelationView } from './relation-view.ts';

const text = (name: string) => systemField(name, 'string', 'character varying');

const json = (name: string) => systemField(name, 'json', 'jsonb');

/**
 * /relations as a collection the item query language can address (docs/api.md §7a): the three names are
 * text fields (filter, sort, search), `schema` and `meta` json fields (select them whole or with
 * `json(schema, on_delete)`, filter them with the json operators). It has no primary key: a relation is
 * named by its collection and field, which are also the order of a list without `sort` and its tie-break.
 */
export const RELATIONS_COLLECTION: CollectionSchema = {
  name: 'relations',
  primaryKey: null,
  readOnly: true,
  fields: [text('collection'), text('field'), text('related_collection'), json('schema'), json('meta')],
};

/**
 * Item parameters /relations does not answer: aggregates and relational reads (relations have no relations
 * to follow). Named here, not left to the items' parser, so that they are refused rather than ignored
 * (ignoring would answer another question than the one asked), whatever the items learn.
 */
const UNSUPPORTED_PARAMETERS = ['aggregate', 'groupBy', 'deep', 'alias'] as const;

/** One page of relations and the counts `meta` asked for. */
export type RelationPage = {
  readonly data: ReadonlyArray<Record<string, unknown>>;
  readonly totalCount?: number;
  readonly filterCount?: number;
  /** Asked for as estimates, answered exactly: counting what is in memory costs nothing. */
  readonly estimatedTotalCount?: number;
  readonly estimatedFilterCount?: number;
};

/**
 * Answers an item query over the relations the caller may see, in process: they are the schema snapshot's,
 * already in memory, so parsing and matching are the domain's own (the same rules, limits and errors as
 * items), with nothing sent to the database. Cursor pages (`after`, `meta=next`) are for items only.
 */
export function queryRelations(
  relations: ReadonlyArray<RelationView>,
  raw: RawItemQuery,
  caller: Accountability,
  now: Date,
  limits: QueryLimits,
): RelationPage {
  for (const name of UNSUPPORTED_PARAMETERS) {
    if (Object.hasOwn(raw, name)) {
      throw invalidQuery(`The "${name}" parameter is not supported on /relations.`, {
        reason: 'UNSUPPORTED_PARAMETER',
      });
    }
  }
  const query = parseItemQuery(raw, RELATIONS_COLLECTION, limits);
  if (query.after !== null || query.meta.next) {
    throw invalidQuery('Cursor pages ("after", "meta=next") are for items; use "offset" or "page".', {
      reason: 'INVALID_CURSOR',
    });
  }
  const conditions: BoundFilterNode[] = [];
  if (query.filter) {
    conditions.push(
      bindDynamicValues(query.filter, { user: caller.user, role: caller.role, now }, RELATIONS_COLLECTION),
    );
  }
  if (query.search !== null) conditions.push(searchFilter(query.search, RELATIONS_COLLECTION.fields));
  const condition = conditions.length === 0 ? null : allOf(conditions);
  const matching = relations.filter(
    (relation) =>
      condition === null || matchesFilter(condition, canonicalRow(relation), RELATIONS_COLLECTION),
  );
  const ordered = [...matching].sort((a, b) => {
    for (const { field, direction } of query.sort) {
      const order = compareValues('string', textOf(a, field), textOf(b, field));
      if (order !== 0) return direction === 'asc' ? order : -order;
    }
    return compareCodePoints(a.collection, b.collection) || compareCodePoints(a.field, b.field);
  });
  const page = ordered.slice(query.offset, query.limit === null ? undefined : query.offset + query.limit);
  const counts = query.meta;
  return {
    data: page.map((relation) => selectFields(relation, query.fields)),
    ...(counts.totalCount ? { totalCount: relations.length } : {}),
    ...(counts.filterCount ? { filterCount: matching.length } : {}),
    ...(counts.estimatedTotalCount ? { estimatedTotalCount: relations.length } : {}),
    ...(counts.estimatedFilterCount ? { estimatedFilterCount: matching.length } : {}),
  };
}

/** The relation as matchesFilter reads an item: json fields as canonical JSON text. */
function canonicalRow(relation: RelationView): Record<string, unknown> {
  return {
    collection: relation.collection,
    field: relation.field,
    related_collection: relation.related_collection,
    schema: canonicalJson(relation.schema),
    meta: canonicalJson(relation.meta),
  };
}

function textOf(relation: RelationView, field: string): string {
  return String(relation[field as 'collection' | 'field' | 'related_collection']);
}
