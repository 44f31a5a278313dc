import type { Logger } from 'pino';
import type { HttpContext } from './http-state.ts';

/**
 * One line per request. The path is logged without its query string: `?access_token=` is a secret,
 * and filters may hold personal data.
 */
export function logAccess(logger: Logger, ctx: HttpContext, ms: number): void {
  logger.info(
    {
      requestId: ctx.state.requestId,
      method: ctx.method,
      path: ctx.path,
      status: ctx.status,
      ms: Math.round(ms * 10) / 10,
    },
    'request',
  );
}
