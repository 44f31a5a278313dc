import type { Metrics } from '../../application/ports/metrics.ts';
import type { HttpContext } from './http-state.ts';

/**
 * The label of a request no route took: unknown paths, and requests answered before routing (a query too
 * long, a malformed path, a server still starting). Raw paths would give one series per path a scanner
 * tries.
 */
export const UNMATCHED_ROUTE = 'unmatched';

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** Counts a served request by route template, method and final status. */
export function countRequest(metrics: Metrics, ctx: HttpContext, seconds: number): void {
  metrics.requestServed({
    route: routeOf(ctx),
    method: METHODS.has(ctx.method) ? ctx.method : 'OTHER',
    status: ctx.status,
    seconds,
  });
}

/** The pattern @koa/router matched (`/items/:collection/:key`), as registered by an area module. */
function routeOf(ctx: HttpContext): string {
  const matched = (ctx as { _matchedRoute?: string | RegExp })._matchedRoute;
  return typeof matched === 'string' ? matched : UNMATCHED_ROUTE;
}
