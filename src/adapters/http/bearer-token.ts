import { DomainError, invalidPayload, invalidToken } from '../../domain/errors.ts';
import type { HttpContext } from './http-state.ts';

const BEARER = /^Bearer +(\S+) *$/i;

/**
 * The token a request presents, or null when it presents none (the public caller).
 * RFC 6750 ways: `Authorization: Bearer <t>` or `?access_token=<t>`; using both is ambiguous and refused.
 */
export function presentedToken(ctx: HttpContext, allowQueryToken: boolean): string | null {
  const header = ctx.get('Authorization');
  const query = queryToken(ctx.querystring, ctx);
  if (header && query !== undefined) {
    throw invalidPayload('Pass the token either in the Authorization header or as access_token, not both.');
  }
  if (header) return fromHeader(header);
  if (query === undefined) return null;
  if (!allowQueryToken) {
    // Refused rather than ignored: silently running as the public caller would turn a
    // configuration mismatch into confusing 401/403 answers far from the cause.
    throw invalidPayload(
      'Passing the token as ?access_token= is disabled on this server; use the Authorization header.',
      'access_token',
    );
  }
  if (Array.isArray(query)) throw invalidPayload('Pass access_token only once.', 'access_token');
  if (query === '') throw invalidToken();
  return query;
}

/**
 * Koa's `ctx.query` parses the whole query string into an object (1 % of a read's CPU), and nothing else on
 * the read path asks for it: it is read only when the string could name `access_token`, literally or through
 * a percent-escape.
 */
function queryToken(querystring: string, ctx: HttpContext): string | string[] | undefined {
  if (!querystring.includes('access_token') && !querystring.includes('%')) return undefined;
  return ctx.query.access_token;
}

function fromHeader(header: string): string {
  const match = BEARER.exec(header);
  if (!match) {
    throw new DomainError('INVALID_TOKEN', 'Authorization header must be "Bearer <token>".');
  }
  return match[1]!;
}
