import { z } from 'zod';
import type { RawItemQuery } from '../../domain/query/parse-item-query.ts';
import {
  refuseExportInSearchBody,
  refuseListParametersInSearchUrl,
} from '../../domain/query/search-request-parameters.ts';
import type { HttpContext } from './http-state.ts';
import { itemQuery } from './item-query-string.ts';

/**
 * Directus's SEARCH (`withSearch` in @directus/sdk): the list parameters of GET as JSON in the body, for
 * queries that would not fit in a URL. Values are those of the query string (docs/api.md §4), JSON-typed.
 */
export const searchBody = z.strictObject({ query: z.record(z.string(), z.unknown()) });

/**
 * The body's query, which alone is the question (list parameters in the URL and `export` are refused,
 * docs/decisions/0074-search-reads-its-query-from-the-body-only.md). The SDK sends `fields: []` when none
 * were asked for; Directus reads that as the default, `*`.
 */
export function searchQuery(ctx: HttpContext, { query }: z.output<typeof searchBody>): RawItemQuery {
  refuseListParametersInSearchUrl(itemQuery(ctx));
  refuseExportInSearchBody(query);
  const { fields, ...rest } = query;
  return Array.isArray(fields) && fields.length === 0 ? rest : query;
}
