import type { Readiness } from '../../application/server/readiness.ts';
import type { HttpMiddleware } from './http-state.ts';
import { assertQueryLength } from './query-length-limit.ts';
import { assertReady } from './readiness-gate.ts';
import { assertWellFormedInput } from './well-formed-input.ts';

/**
 * What every request must pass before routing, in this order: a query string within bounds (refused before
 * anything parses it), well-formed text in the path, query and headers, a server ready to serve. Synchronous
 * checks in one middleware: a Koa layer each would cost an async frame and a dispatch per request.
 */
export function admission(maxQueryLength: number, readiness: Readiness): HttpMiddleware {
  return (ctx, next) => {
    assertQueryLength(ctx, maxQueryLength);
    assertWellFormedInput(ctx);
    assertReady(ctx, readiness);
    return next();
  };
}
