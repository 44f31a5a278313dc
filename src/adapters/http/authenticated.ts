import type { ResolveAccountabilityHandler } from '../../application/auth/resolve-accountability.ts';
import type { Accountability, RequestOrigin } from '../../domain/accountability.ts';
import type { DatabaseWork, DatabaseWorkKind } from '../../domain/database-work.ts';
import { previewRefused } from '../../domain/errors.ts';
import { presentedToken } from './bearer-token.ts';
import type { CallerConcurrencyLimit } from './caller-concurrency-limit.ts';
import type { RouteContext, RouteMiddleware } from './http-state.ts';

export type CallerRoute = (ctx: RouteContext, caller: Accountability) => Promise<void>;

/**
 * Wraps a route that acts for a caller: the token is resolved once, kept on `ctx.state.caller`, and
 * handed to the route, so a route cannot forget to authenticate. Routes that must not look at
 * tokens at all (/auth/*, /server/health) simply are not wrapped.
 *
 * Being where the caller becomes known, it is also where the caller's share is kept: the route runs
 * within the caller's concurrency limit, and the caller carries the request's database work (its
 * statements' timeout, its reads' replica), which handlers hand to the stores; and where a role preview,
 * which reads only, is refused every other method.
 */
export type Authenticated = (route: CallerRoute) => RouteMiddleware;

export function authenticatedRoutes(
  resolver: ResolveAccountabilityHandler,
  allowQueryToken: boolean,
  limit: CallerConcurrencyLimit,
): Authenticated {
  return (route) => async (ctx) => {
    const resolved = await resolver.execute(null, { token: presentedToken(ctx, allowQueryToken) });
    const readsOnly = READING_METHODS.has(ctx.method);
    // The one gate of every route that acts for a caller, so no write route can forget it (docs/api.md §6).
    if (resolved.preview && !readsOnly) throw previewRefused();
    // `ctx.ip` walks the forwarded addresses: asked only for the anonymous caller it names.
    const key = shareKeyOf(resolved, () => ctx.ip);
    const work = databaseWorkOf(resolved, key, readsOnly);
    // Where a request came from is recorded with what it writes (activity, docs/api.md §14); a read records
    // nothing, so it does not pay for reading the forwarded address and the headers.
    const caller: Accountability = readsOnly
      ? { ...resolved, work }
      : { ...resolved, origin: requestOrigin(ctx), work };
    ctx.state.caller = caller;
    await limit.run(key, () => route(ctx, caller));
  };
}

/** Where the request came from, for the activity its writes record (docs/api.md §14). */
export function requestOrigin(ctx: RouteContext): RequestOrigin {
  return { ip: ctx.ip || null, userAgent: ctx.get('user-agent') || null, origin: ctx.get('origin') || null };
}

/** Methods that change nothing: their reads may be served by a read replica. */
const READING_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'SEARCH']);

/**
 * The key of a caller's share (CallerConcurrencyLimit) and of its database work: a user's requests share one
 * whatever token they come with (access tokens of several sessions, static tokens, the role previews they
 * issued); an anonymous caller is its client address (`http.trustProxy` decides which one), asked for only
 * then.
 */
export function shareKeyOf(caller: Accountability, address: () => string): string {
  const user = caller.user ?? caller.preview?.issuer ?? null;
  return user === null ? `address ${address()}` : `user ${user}`;
}

/** The database work of a caller's request: its statement bound by kind, its share's key, whether it only reads. */
export function databaseWorkOf(caller: Accountability, key: string, readsOnly: boolean): DatabaseWork {
  return { kind: workKind(caller, readsOnly), caller: key, readsOnly };
}

function workKind(caller: Accountability, readsOnly: boolean): DatabaseWorkKind {
  if (caller.admin) return 'admin';
  return readsOnly ? 'read' : 'write';
}
