import { unescape as percentDecoded } from 'node:querystring';
import type { RouterParameterMiddleware } from '@koa/router';
import { invalidPayload } from '../../domain/errors.ts';
import { describeInput, invalidQuery } from '../../domain/query/invalid-query.ts';
import { escapedText, textFlaw } from '../../domain/well-formed-text.ts';
import type { HttpContext, HttpState } from './http-state.ts';

/** As much of a parameter name as an error names (a query string may be 16 KiB). */
const SHOWN_NAME = 64;

/**
 * docs/api.md §4a: no text with a NUL character or a lone surrogate gets past the edge, whatever the endpoint,
 * so that no handler has to remember it and nothing reaches PostgreSQL to fail there (or be altered to
 * U+FFFD). This middleware covers the path's percent-encoding, the query string and the headers;
 * `wellFormedParameter` the decoded path parameters, and the JSON body reader the bodies.
 */
export function assertWellFormedInput(ctx: HttpContext): void {
  assertDecodablePath(ctx.path);
  assertWellFormedQuery(ctx.querystring);
  for (const [name, value] of Object.entries(ctx.headers)) {
    for (const text of Array.isArray(value) ? value : [value ?? '']) {
      // Node's HTTP parser refuses a NUL in a header, unless run with --insecure-http-parser.
      const flaw = textFlaw(text);
      if (flaw) throw invalidPayload(`The "${name}" header contains ${flaw}.`, name);
    }
  }
}

/**
 * The router keeps a segment it cannot decode (`%FF`, `%ED%A0%80`: an encoded lone surrogate) as its literal
 * text, so `/items/t/%FF` would look up the key "%FF"; such a path is refused, as such a query string is.
 */
function assertDecodablePath(path: string) {
  if (!path.includes('%')) return;
  try {
    decodeURIComponent(path);
  } catch {
    throw invalidPayload('The path is not valid percent-encoded UTF-8.', 'path');
  }
}

/**
 * Every key and value as a reader would decode it. Node's lenient decoding (Koa's `ctx.query`) is used, as it
 * decodes the most: `%00` is a NUL even inside an otherwise malformed escape sequence. Percent-decoding can
 * make no lone surrogate; those hide in JSON values (`filter`), which their parser checks.
 */
function assertWellFormedQuery(querystring: string) {
  if (!mayDecodeToFlawedText(querystring)) return;
  for (const pair of querystring.split('&')) {
    const equals = pair.indexOf('=');
    const name = decoded(equals === -1 ? pair : pair.slice(0, equals));
    const nameFlaw = textFlaw(name);
    if (nameFlaw) {
      const shown = escapedText(name).slice(0, SHOWN_NAME);
      throw invalidQuery(`The query parameter name "${shown}" contains ${nameFlaw}.`, {
        field: shown,
        reason: 'INVALID_VALUE',
      });
    }
    const flaw = equals === -1 ? null : textFlaw(decoded(pair.slice(equals + 1)));
    if (flaw) {
      throw invalidQuery(`The value of query parameter ${describeInput(name)} contains ${flaw}.`, {
        field: name.slice(0, SHOWN_NAME),
        reason: 'INVALID_VALUE',
      });
    }
  }
}

/**
 * Decoding makes a NUL only from `%00` (an undecodable sequence becomes U+FFFD) and no surrogate, so a query
 * string with neither, encoded or as is, is not split and decoded on every request. Any surrogate counts,
 * paired or not: a pair may straddle an `=` or `&` and be split.
 */
function mayDecodeToFlawedText(querystring: string): boolean {
  return querystring.includes('%00') || querystring.includes('\u0000') || ANY_SURROGATE.test(querystring);
}

/** Without the `u` flag each half of a pair is a code unit of its own. */
const ANY_SURROGATE = /[\uD800-\uDFFF]/;

function decoded(text: string): string {
  return percentDecoded(text.replace(/\+/g, ' '));
}

/**
 * A router parameter handler refusing a path segment (`/items/a%00b`, `/roles/%00`) that decodes to flawed
 * text, naming the parameter. One per name: the router runs a given handler function only once per request.
 */
export function wellFormedParameter(name: string): RouterParameterMiddleware<HttpState> {
  return (value, _ctx, next) => {
    const flaw = textFlaw(value);
    if (flaw) throw invalidPayload(`The path parameter "${name}" contains ${flaw}.`, name);
    return next();
  };
}
