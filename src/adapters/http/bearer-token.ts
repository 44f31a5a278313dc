import { DomainError, invalidPayload, invalidToken } from '../../domain/errors.ts';
import type { HttpContext } from './http-state.ts';
import { credentialQuery } from './item-query-string.ts';

const BEARER = /^Bearer +(\S+) *$/i;

/**
 * The token a request presents, or null when it presents none (the public caller).
 * RFC 6750 ways: `Authorization: Bearer <t>` or `?access_token=<t>`; using both, or sending the header
 * twice, is ambiguous and refused.
 */
export function presentedToken(ctx: HttpContext, allowQueryToken: boolean): string | null {
  // Present even when empty: an empty header is a header that names no Bearer token, not the public caller.
  const header = ctx.req.headers.authorization;
  if (header !== undefined && authorizationHeaders(ctx.req.rawHeaders) > 1) {
    // Node keeps the first and drops the others, where a proxy in front may have judged the last.
    throw invalidPayload('Send one Authorization header.');
  }
  const query = accessTokenParameter(ctx);
  if (header !== undefined && query !== undefined) {
    throw invalidPayload('Pass the token either in the Authorization header or as access_token, not both.');
  }
  if (header !== undefined) return fromHeader(header);
  if (query === undefined) return null;
  const token = checkedQueryToken(query, allowQueryToken);
  if (token === '') throw invalidToken();
  return token;
}

/**
 * The token of a WebSocket upgrade's URL (docs/api.md §12), or null when it names none; refused as on HTTP
 * when given twice, in a bracket form or while disabled. An empty one is a token that fails (4003).
 */
export function urlToken(querystring: string, allowQueryToken: boolean): string | null {
  const query = accessTokenParameter(querystring);
  return query === undefined ? null : checkedQueryToken(query, allowQueryToken);
}

/**
 * `access_token` as qs reads the whole query (`credentialQuery`), so that no spelling the routes read as
 * `access_token` escapes it: a string, an array or object (given twice, or in a bracket form), or undefined.
 */
function accessTokenParameter(request: HttpContext | string): unknown {
  const querystring = typeof request === 'string' ? request : request.querystring;
  if (!mayNameAccessToken(querystring)) return undefined;
  const query = credentialQuery(request);
  return Object.hasOwn(query, 'access_token') ? query.access_token : undefined;
}

function checkedQueryToken(token: unknown, allowQueryToken: boolean): string {
  if (!allowQueryToken) {
    // Refused rather than ignored: silently running as the public caller would turn a
    // configuration mismatch into confusing 401/403 answers far from the cause.
    throw invalidPayload(
      'Passing the token as ?access_token= is disabled on this server; use the Authorization header.',
      'access_token',
    );
  }
  // `access_token[]=…` is refused as a repeated one is, never taken for no token: that would run the
  // request as the public caller.
  if (typeof token !== 'string') {
    throw invalidPayload('Pass access_token once, as a plain parameter.', 'access_token');
  }
  return token;
}

/**
 * Parsing the query string costs (1 % of a read's CPU, and nothing else on most read paths asks for it):
 * it is read only when the string could name `access_token`, literally or through a percent-escape.
 */
function mayNameAccessToken(querystring: string): boolean {
  return querystring.includes('access_token') || querystring.includes('%');
}

const AUTHORIZATION = 'authorization';

/**
 * How many Authorization fields a request sent: `rawHeaders` alternates names and values. Run on every
 * request with a token, so a name is lower-cased only when its length could make it `authorization`.
 */
function authorizationHeaders(rawHeaders: ReadonlyArray<string>): number {
  let count = 0;
  for (let index = 0; index < rawHeaders.length; index += 2) {
    const name = rawHeaders[index]!;
    if (name.length === AUTHORIZATION.length && name.toLowerCase() === AUTHORIZATION) count++;
  }
  return count;
}

function fromHeader(header: string): string {
  const match = BEARER.exec(header);
  if (!match) {
    throw new DomainError('INVALID_TOKEN', 'Authorization header must be "Bearer <token>".');
  }
  return match[1]!;
}
