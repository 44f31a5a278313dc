import type { HttpContext } from './http-state.ts';

const HEADERS: ReadonlyArray<readonly [string, string]> = [
  ['Referrer-Policy', 'no-referrer'],
  ['X-Content-Type-Options', 'nosniff'],
  ['X-Frame-Options', 'DENY'],
  ['Cache-Control', 'no-store'],
];

/**
 * Set before anything else runs, so error answers carry them too.
 * - `Referrer-Policy: no-referrer`: a URL with `?access_token=` must not travel to other sites.
 * - `Cache-Control: no-store` on every answer, not just /auth/*: every body depends on who asks
 *   (permissions) or carries tokens, so no shared or browser cache may keep one.
 */
export function setSecurityHeaders(ctx: HttpContext): void {
  // Straight onto the response: nothing has been sent yet, and Koa's `ctx.set` would only check that again.
  for (const [name, value] of HEADERS) ctx.res.setHeader(name, value);
}
