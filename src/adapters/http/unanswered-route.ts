import { notFound } from '../../domain/errors.ts';
import { methodNotAllowed } from './http-problem.ts';
import type { HttpContext } from './http-state.ts';

/**
 * Turns what the router left unanswered into contract errors, once it has run. The router and its
 * `allowedMethods()` mark a known path with a wrong method as 405 (or 501 for a method the router does not
 * know at all) and set `Allow`, but write no body.
 */
export function assertAnswered(ctx: HttpContext): void {
  if (ctx.body !== undefined && ctx.body !== null) return;
  if (ctx.status === 405 || ctx.status === 501) {
    const allow = ctx.response.get('Allow');
    throw allow ? methodNotAllowed(ctx.method, allow) : notFound('Route');
  }
  if (ctx.status === 404) throw notFound('Route');
}
