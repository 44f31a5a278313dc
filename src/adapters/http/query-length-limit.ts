import { uriTooLong } from './http-problem.ts';
import type { HttpMiddleware } from './http-state.ts';

/** docs/api.md §4a: a query string over `maxLength` bytes is refused before anything parses it. */
export function queryLengthLimit(maxLength: number): HttpMiddleware {
  return async (ctx, next) => {
    if (Buffer.byteLength(ctx.querystring) > maxLength) throw uriTooLong();
    await next();
  };
}
