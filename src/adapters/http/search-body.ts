import { z } from 'zod';
import type { RawItemQuery } from '../../domain/query/parse-item-query.ts';

/**
 * Directus's SEARCH (`withSearch` in @directus/sdk): the list parameters of GET as JSON in the body, for
 * queries that would not fit in a URL. Values are those of the query string (docs/api.md §4), JSON-typed.
 */
export const searchBody = z.strictObject({ query: z.record(z.string(), z.unknown()) });

/** The SDK sends `fields: []` when none were asked for; Directus reads that as the default, `*`. */
export function searchQuery({ query }: z.output<typeof searchBody>): RawItemQuery {
  const { fields, ...rest } = query;
  return Array.isArray(fields) && fields.length === 0 ? rest : query;
}
