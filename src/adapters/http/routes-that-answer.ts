import type { HttpMiddleware, RouteContext } from './http-state.ts';
import { UUID_PATTERN } from './uuid.ts';

type MatchedRoute = NonNullable<RouteContext['matched']>[number];

/**
 * The routes matched by the request's path that can answer it: a route with an `:id` only when the path
 * gives it one that could exist, since any other is refused (404) before its handler runs. `/users/me`
 * matches `/users/:id` too, whose DELETE cannot answer there.
 */
export function routesThatAnswer(ctx: RouteContext): MatchedRoute[] {
  const path = ctx.routerPath ?? ctx.path;
  return (ctx.matched ?? []).filter((route) => {
    const id = route.params(path, route.captures(path)).id;
    return id === undefined || UUID_PATTERN.test(id);
  });
}

/** The `Allow` header of `routes`: each method once, in the router's order (HEAD with GET). */
export function allowOf(routes: ReadonlyArray<MatchedRoute>): string {
  return [...new Set(routes.flatMap((route) => route.methods))].join(', ');
}

/**
 * Between the router and its `allowedMethods()`: the `Allow` of a 405 or an OPTIONS answer names only the
 * methods that work on the path, not those of a route whose id the path cannot fill.
 */
export const onlyRoutesThatAnswer: HttpMiddleware = (ctx, next) => {
  const routed = ctx as RouteContext;
  if (routed.matched) routed.matched = routesThatAnswer(routed);
  return next();
};
