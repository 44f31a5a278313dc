import { uriTooLong } from './http-problem.ts';
import type { HttpContext } from './http-state.ts';

/** docs/api.md §4a: a query string over `maxLength` bytes is refused before anything parses it. */
export function assertQueryLength(ctx: HttpContext, maxLength: number): void {
  const querystring = ctx.querystring;
  // A UTF-8 byte is at most one UTF-16 unit and a unit at most 3 bytes: the count is needed only in between.
  if (querystring.length * 3 <= maxLength) return;
  if (querystring.length > maxLength || Buffer.byteLength(querystring) > maxLength) throw uriTooLong();
}
