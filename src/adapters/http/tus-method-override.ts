import { methodNotAllowed } from './http-problem.ts';
import type { RouteMiddleware } from './http-state.ts';

/** The methods TUS lets a client send as POST, for environments that cannot send them. */
const TUNNELLED: ReadonlySet<string> = new Set(['PATCH', 'DELETE']);

/**
 * TUS 1.0 §X-HTTP-Method-Override at an upload's URL (docs/api.md §15): a POST naming PATCH or DELETE in
 * `X-HTTP-Method-Override` is that request (tus-js-client's `overridePatchMethod`). The method is replaced
 * before anything reads it — the token's check, the owner's, the protocol's refusals and @tus/server alike —
 * so every check judges the request that is served, never the one on the wire. A POST there without it, or
 * naming another method, is refused as a POST always was (405, `allow`); other methods are served as sent,
 * the header ignored.
 */
export function tusMethodOverride(allow: string): RouteMiddleware {
  return (ctx, next) => {
    if (ctx.method !== 'POST') return next();
    const method = ctx.get('X-HTTP-Method-Override');
    if (!TUNNELLED.has(method)) throw methodNotAllowed(ctx.method, allow);
    ctx.method = method;
    return next();
  };
}
