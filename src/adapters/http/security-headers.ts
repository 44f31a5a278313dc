import type { HttpMiddleware } from './http-state.ts';

/**
 * Set before anything else runs, so error answers carry them too.
 * - `Referrer-Policy: no-referrer`: a URL with `?access_token=` must not travel to other sites.
 * - `Cache-Control: no-store` on every answer, not just /auth/*: every body depends on who asks
 *   (permissions) or carries tokens, so no shared or browser cache may keep one.
 */
export const securityHeaders: HttpMiddleware = async (ctx, next) => {
  ctx.set({
    'Referrer-Policy': 'no-referrer',
    'X-Content-Type-Options': 'nosniff',
    'X-Frame-Options': 'DENY',
    'Cache-Control': 'no-store',
  });
  await next();
};
