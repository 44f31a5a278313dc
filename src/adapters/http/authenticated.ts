import type { ResolveAccountabilityHandler } from '../../application/auth/resolve-accountability.ts';
import type { Accountability } from '../../domain/accountability.ts';
import { presentedToken } from './bearer-token.ts';
import type { RouteContext, RouteMiddleware } from './http-state.ts';

export type CallerRoute = (ctx: RouteContext, caller: Accountability) => Promise<void>;

/**
 * Wraps a route that acts for a caller: the token is resolved once, kept on `ctx.state.caller`, and
 * handed to the route, so a route cannot forget to authenticate. Routes that must not look at
 * tokens at all (/auth/*, /server/health) simply are not wrapped.
 */
export type Authenticated = (route: CallerRoute) => RouteMiddleware;

export function authenticatedRoutes(
  resolver: ResolveAccountabilityHandler,
  allowQueryToken: boolean,
): Authenticated {
  return (route) => async (ctx) => {
    const caller = await resolver.execute(null, { token: presentedToken(ctx, allowQueryToken) });
    ctx.state.caller = caller;
    await route(ctx, caller);
  };
}
