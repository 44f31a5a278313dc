import type { Accountability } from '../../domain/accountability.ts';
import { bindDynamicValues } from '../../domain/query/bind-dynamic-values.ts';
import { allOf } from '../../domain/query/combine-filters.ts';
import type { BoundFilterNode, FilterNode } from '../../domain/query/filter.ts';
import { invalidQuery } from '../../domain/query/invalid-query.ts';
import type { ItemQuery } from '../../domain/query/item-query.ts';
import { refuseOneRecordParameters } from '../../domain/query/one-record-parameters.ts';
import { parseItemQuery, type QueryLimits, type RawItemQuery } from '../../domain/query/parse-item-query.ts';
import { searchFilter } from '../../domain/query/search-filter.ts';
import type { CollectionSchema } from '../../domain/schema/collection-schema.ts';
import type { SystemQuery } from '../ports/system-query.ts';
import { SECRET_FIELDS } from './system-collections.ts';

/** What a system list was asked for: the repository's query and the fields to answer with. */
export type SystemListRequest = { readonly query: SystemQuery; readonly fields: ItemQuery['fields'] };

/**
 * Item parameters these lists do not answer: keyset cursors, and the aggregates and relational reads
 * (system collections have no relations to follow). Named here, not left to the items' parser, so that
 * they stay refused when the items learn them.
 */
const UNSUPPORTED_PARAMETERS = ['after', 'aggregate', 'groupBy', 'deep', 'alias'] as const;

/**
 * The list parameters of docs/api.md §4 on a system collection, parsed by the items' own parser so that
 * the errors, reasons and limits are the same. What the items have and these lists do not is refused
 * as UNSUPPORTED_PARAMETER rather than ignored (ignoring would answer another question than the one
 * asked): keyset cursors (`after`, `meta=next`), the planner's estimates (system tables are small; ask
 * for the exact counts), aggregates and `deep`.
 */
export function parseSystemListQuery(
  raw: RawItemQuery,
  collection: CollectionSchema,
  limits: QueryLimits,
  caller: Accountability,
  now: Date,
): SystemListRequest {
  for (const name of UNSUPPORTED_PARAMETERS) {
    if (Object.hasOwn(raw, name)) {
      throw invalidQuery(`The "${name}" parameter is not supported on /${collection.name}.`, {
        reason: 'UNSUPPORTED_PARAMETER',
      });
    }
  }
  const query = parseItemQuery(raw, collection, limits);
  const { meta } = query;
  if (meta.next || meta.estimatedTotalCount || meta.estimatedFilterCount) {
    throw invalidQuery(`On /${collection.name} "meta" takes total_count, filter_count or *.`, {
      reason: 'UNSUPPORTED_PARAMETER',
    });
  }
  if (query.filter) assertSecretsOnlyNullTested(query.filter);
  const conditions: BoundFilterNode[] = [];
  if (query.filter) {
    conditions.push(
      bindDynamicValues(query.filter, { user: caller.user, role: caller.role, now }, collection),
    );
  }
  if (query.search !== null) {
    const searchable = collection.fields.filter((field) => !SECRET_FIELDS.has(field.name));
    conditions.push(searchFilter(query.search, searchable));
  }
  return {
    fields: query.fields,
    query: {
      filter: conditions.length === 0 ? null : allOf(conditions),
      sort: query.sort,
      limit: query.limit,
      offset: query.offset,
      count: { total: meta.totalCount, filtered: meta.filterCount },
      work: caller.work,
    },
  };
}

/**
 * `fields` alone, for the get-one endpoints: as on items, the list parameters that would change the answer
 * are refused and the others ignored.
 */
export function parseSystemFields(
  raw: RawItemQuery | undefined,
  collection: CollectionSchema,
  limits: QueryLimits,
): ItemQuery['fields'] {
  if (raw !== undefined) refuseOneRecordParameters(raw);
  if (raw === undefined || !Object.hasOwn(raw, 'fields')) return '*';
  return parseItemQuery({ fields: raw.fields }, collection, limits).fields;
}

/**
 * A secret may only be tested for presence ("users with a static token"): any other test would let a
 * caller guess it a character at a time. Refused as the operator the field's type does not take.
 */
function assertSecretsOnlyNullTested(node: FilterNode): void {
  switch (node.kind) {
    case 'and':
    case 'or':
      for (const child of node.nodes) assertSecretsOnlyNullTested(child);
      return;
    case 'relation':
      return;
    case 'condition':
      if (SECRET_FIELDS.has(node.field) && node.operator !== '_null' && node.operator !== '_nnull') {
        throw invalidQuery(`Field "${node.field}" is a secret: only _null and _nnull test it.`, {
          field: node.field,
          reason: 'UNSUPPORTED_OPERATOR',
        });
      }
  }
}
