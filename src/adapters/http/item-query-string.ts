import { unescape as lenientlyDecoded } from 'node:querystring';
import qs from 'qs';
import { DomainError } from '../../domain/errors.ts';
import { describeInput, invalidQuery } from '../../domain/query/invalid-query.ts';
import type { RawItemQuery } from '../../domain/query/parse-item-query.ts';
import { singleValue } from '../../domain/query/single-value.ts';
import type { HttpContext } from './http-state.ts';

/** The most `key=value` pairs a query string may hold (docs/api.md §4a), the flat reading's and qs's. */
const PARAMETER_LIMIT = 1000;
/** The most values of one name (repeated, or a bracket list: `fields[]=…`), qs's `arrayLimit`. */
const ARRAY_LIMIT = 500;

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
  return parseQueryString(ctx.querystring);
}

function parseQueryString(querystring: string): RawItemQuery {
  if (!BRACKET.test(querystring)) {
    const flat = flatQuery(querystring);
    if (flat) return flat;
  }
  assertWithinParameterLimit(querystring);
  assertNoPrototypeSegment(querystring);
  try {
    return qs.parse(querystring, QS_OPTIONS) as RawItemQuery;
  } catch (error) {
    // The one limit left to qs (the pairs are counted above): past it, qs would turn the list into an
    // object of indexes, refused later with a vaguer message.
    if (error instanceof RangeError) {
      throw invalidQuery(`A query parameter has more than ${ARRAY_LIMIT} values.`, {
        reason: 'INVALID_VALUE',
      });
    }
    throw error;
  }
}

/**
 * qs would silently drop every pair past its limit, so `…&filter[id][_eq]=1` as the 1,001st pair would read
 * as no filter and answer rows nobody asked for: such a query string is refused. Counted as qs counts.
 */
function assertWithinParameterLimit(querystring: string) {
  let pairs = 1;
  for (let at = querystring.indexOf('&'); at !== -1; at = querystring.indexOf('&', at + 1)) {
    if (++pairs > PARAMETER_LIMIT) {
      throw invalidQuery(`The query string has more than ${PARAMETER_LIMIT} parameters.`, {
        reason: 'INVALID_VALUE',
      });
    }
  }
}

export const QS_OPTIONS = {
  depth: 24,
  arrayLimit: ARRAY_LIMIT,
  parameterLimit: PARAMETER_LIMIT,
  throwOnLimitExceeded: true,
  allowPrototypes: false,
  plainObjects: true,
  decoder: strictDecoder,
} as const satisfies qs.IParseOptions;

/** One parameter the API reads as a single value (`download`, `mode`, `last_event_id`): `singleValue`. */
export function singleParameter(ctx: HttpContext, name: string): string | undefined {
  return singleValue(itemQuery(ctx), name);
}

/**
 * The query of a request (or of a WebSocket upgrade's URL) for the credential it may carry (`access_token`):
 * as `itemQuery` reads it, or, when that refuses the query (a malformed escape, a `[__proto__]` segment, a
 * limit), as qs reads it with those forgiven. The token is read before the query is judged (docs/api.md §2,
 * order of checks): a route that reads the query refuses it after the token, one that reads none ignores it.
 */
export function credentialQuery(request: HttpContext | string): RawItemQuery {
  const querystring = typeof request === 'string' ? request : request.querystring;
  try {
    return typeof request === 'string' ? parseQueryString(querystring) : itemQuery(request);
  } catch (error) {
    if (!(error instanceof DomainError && error.code === 'INVALID_QUERY')) throw error;
    return qs.parse(querystring, LENIENT_QS_OPTIONS) as RawItemQuery;
  }
}

const LENIENT_QS_OPTIONS = {
  ...QS_OPTIONS,
  parameterLimit: Number.POSITIVE_INFINITY,
  throwOnLimitExceeded: false,
  decoder: (text: string) => lenientlyDecoded(text.replace(/\+/g, ' ')),
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
