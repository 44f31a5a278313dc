import { performance } from 'node:perf_hooks';
import type { Metrics } from '../../application/ports/metrics.ts';
import type { HttpContext, HttpMiddleware } from './http-state.ts';

/**
 * The label of a request no route took: unknown paths, and requests answered before routing (a query too
 * long, a malformed path, a server still starting). Raw paths would give one series per path a scanner
 * tries.
 */
export const UNMATCHED_ROUTE = 'unmatched';

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** Times every request and counts it by route template, method and final status. */
export function requestMetrics(metrics: Metrics): HttpMiddleware {
  return async (ctx, next) => {
    const started = performance.now();
    try {
      await next();
    } finally {
      metrics.requestServed({
        route: routeOf(ctx),
        method: METHODS.has(ctx.method) ? ctx.method : 'OTHER',
        status: ctx.status,
        seconds: (performance.now() - started) / 1000,
      });
    }
  };
}

/** The pattern @koa/router matched (`/items/:collection/:id`), as registered by an area module. */
function routeOf(ctx: HttpContext): string {
  const matched = (ctx as { _matchedRoute?: string | RegExp })._matchedRoute;
  return typeof matched === 'string' ? matched : UNMATCHED_ROUTE;
}
