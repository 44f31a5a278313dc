import type { QueryLimits } from '../../../domain/query/parse-item-query.ts';
import { MAX_SEARCH_LENGTH } from '../../../domain/query/parse-item-query.ts';
import type { JsonSchema, Parameter, Reference } from './openapi-types.ts';

/** components.parameters: the item query parameters of docs/api.md §4, with this server's limits. */
export function itemQueryParameters({ limitDefault, limitMax }: QueryLimits): Record<string, Parameter> {
  const query = (name: string, description: string, schema: JsonSchema): Parameter => ({
    name,
    in: 'query',
    description,
    schema,
  });
  const limit: JsonSchema =
    limitMax === -1
      ? { type: 'integer', minimum: -1, default: limitDefault }
      : { type: 'integer', minimum: 0, maximum: limitMax, default: limitDefault };
  return {
    fields: query('fields', 'Comma list of fields to return; `*` is every field you may read.', {
      type: 'string',
      examples: ['*', 'id,description'],
    }),
    filter: query(
      'filter',
      'A JSON filter (`{"temperature":{"_gt":10}}`); the bracket form `filter[temperature][_gt]=10` works too.',
      { type: 'string' },
    ),
    sort: query('sort', 'Comma list of fields; `-` sorts descending.', {
      type: 'string',
      examples: ['-date_created,id'],
    }),
    limit: query('limit', limitMax === -1 ? 'Page size; -1 = every row.' : 'Page size.', limit),
    offset: query('offset', 'Rows to skip (not with `page`).', { type: 'integer', minimum: 0 }),
    page: query('page', 'The 1-based page of `limit` rows (not with `offset`).', {
      type: 'integer',
      minimum: 1,
    }),
    search: query('search', 'Case-insensitive text to find in the text fields you may read.', {
      type: 'string',
      maxLength: MAX_SEARCH_LENGTH,
    }),
    meta: query(
      'meta',
      "Comma list of what to add: `total_count`, `filter_count`, `*` (both), `estimated_total_count`, `estimated_filter_count` (the planner's estimates), `next` (the cursor of the next page).",
      { type: 'string', examples: ['*', 'next', 'estimated_filter_count'] },
    ),
    after: query(
      'after',
      "A cursor from the previous page's `next`: the rows after it, same filter, search and sort (not with `offset` or `page`).",
      { type: 'string', pattern: '^[A-Za-z0-9_-]+$' },
    ),
  };
}

const ref = (name: string): Reference => ({ $ref: `#/components/parameters/${name}` });

export const LIST_PARAMETERS: Reference[] = [
  'fields',
  'filter',
  'sort',
  'limit',
  'offset',
  'page',
  'search',
  'meta',
  'after',
].map(ref);

/** Shapes the items a single read or a write answers with. */
export const FIELDS_PARAMETER: Reference = ref('fields');
