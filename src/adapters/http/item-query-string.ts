import qs from 'qs';
import { invalidQuery } from '../../domain/query/invalid-query.ts';
import type { RawItemQuery } from '../../domain/query/parse-item-query.ts';
import type { HttpContext } from './http-state.ts';

/**
 * Bracket forms (`filter[temperature][_gt]=10`) need a nested parser; the limits keep a hostile query
 * string from building huge objects. Depth stays above the filter's own nesting limit (docs/api.md §4a), so
 * the domain gives the precise INVALID_QUERY rather than qs silently flattening the rest.
 */
export function itemQuery(ctx: HttpContext): RawItemQuery {
  return qs.parse(ctx.querystring, {
    depth: 24,
    arrayLimit: 500,
    parameterLimit: 1000,
    allowPrototypes: false,
    plainObjects: true,
    decoder: strictDecoder,
  }) as RawItemQuery;
}

/**
 * qs keeps a malformed escape (`%FF`, `%C3%28`, a bare `%`) as literal text, which would answer a question
 * nobody asked (a search for the text "%FF"); such a query string is refused, as a body that is not UTF-8 is.
 */
function strictDecoder(text: string): string {
  const spaced = text.includes('+') ? text.replace(/\+/g, ' ') : text;
  if (!spaced.includes('%')) return spaced;
  try {
    return decodeURIComponent(spaced);
  } catch {
    throw invalidQuery('The query string is not valid percent-encoded UTF-8.', { reason: 'INVALID_VALUE' });
  }
}
