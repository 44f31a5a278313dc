import qs from 'qs';
import { describeInput, invalidQuery } from '../../domain/query/invalid-query.ts';
import type { RawItemQuery } from '../../domain/query/parse-item-query.ts';
import type { HttpContext } from './http-state.ts';

/** qs's parameter limit, also the most pairs the flat reading takes on. */
const PARAMETER_LIMIT = 1000;

/** A bracket, raw or percent-encoded (qs reads `%5B`/`%5D` as brackets before decoding). */
const BRACKET = /[[\]]|%5[bd]/i;

/**
 * Bracket forms (`filter[temperature][_gt]=10`) need a nested parser; the limits keep a hostile query
 * string from building huge objects. Depth stays above the filter's own nesting limit (docs/api.md §4a), so
 * the domain gives the precise INVALID_QUERY rather than qs silently flattening the rest.
 *
 * Most requests have no bracket at all (`limit=100`, `filter={…}` in JSON): those are read by `flatQuery`,
 * which gives what qs would (tests/http/item-query-string.test.ts compares them) without its object
 * merging, and qs is left to what needs it.
 */
export function itemQuery(ctx: HttpContext): RawItemQuery {
  const { querystring } = ctx;
  const known = parsed.get(ctx);
  if (known?.querystring === querystring) return known.query;
  const query = parseQueryString(querystring);
  parsed.set(ctx, { querystring, query });
  return query;
}

/**
 * Each request's query as parsed, so that a route asking first (the export, in front of the list on the
 * same path) costs the one that answers nothing. Keyed by the context: gone with the request.
 */
const parsed = new WeakMap<HttpContext, { querystring: string; query: RawItemQuery }>();

function parseQueryString(querystring: string): RawItemQuery {
  if (!BRACKET.test(querystring)) {
    const flat = flatQuery(querystring);
    if (flat) return flat;
  }
  assertNoPrototypeSegment(querystring);
  return qs.parse(querystring, QS_OPTIONS) as RawItemQuery;
}

export const QS_OPTIONS = {
  depth: 24,
  arrayLimit: 500,
  parameterLimit: PARAMETER_LIMIT,
  allowPrototypes: false,
  plainObjects: true,
  decoder: strictDecoder,
} as const satisfies qs.IParseOptions;

/**
 * `key=value&…` without brackets as qs reads it: keys and values decoded, an empty key and `__proto__`
 * dropped, a key without `=` given `''`. Undefined (qs decides) when a key repeats (qs makes a list) or
 * there are more pairs than qs takes.
 */
export function flatQuery(querystring: string): RawItemQuery | undefined {
  const query: Record<string, string> = Object.create(null);
  if (querystring === '') return query;
  const pairs = querystring.split('&');
  if (pairs.length > PARAMETER_LIMIT) return undefined;
  for (const pair of pairs) {
    const equals = pair.indexOf('=');
    const key = strictDecoder(equals === -1 ? pair : pair.slice(0, equals));
    const value = equals === -1 ? '' : strictDecoder(pair.slice(equals + 1));
    if (key === '' || key === '__proto__') continue;
    if (key in query) return undefined;
    query[key] = value;
  }
  return query as RawItemQuery;
}
/** `[__proto__]` in a key, as qs sees it once decoded (an unclosed last bracket included). */
const PROTOTYPE_SEGMENT = /\[__proto__(?:\]|$)/;

/**
 * qs drops a `__proto__` segment with everything under it, so `filter[__proto__][x]=1` would read as no filter
 * at all and answer every row. It is refused as the unknown name it is, as the JSON form
 * `filter={"__proto__":…}` is. A top-level `__proto__=` is an unknown parameter, ignored like any other.
 */
function assertNoPrototypeSegment(querystring: string) {
  for (const pair of querystring.split('&')) {
    const equals = pair.indexOf('=');
    const key = strictDecoder(equals === -1 ? pair : pair.slice(0, equals));
    if (PROTOTYPE_SEGMENT.test(key)) {
      throw invalidQuery(`Unknown name "__proto__" in ${describeInput(key)}.`, {
        field: '__proto__',
        reason: 'UNKNOWN_FIELD',
      });
    }
  }
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
