import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import type { HttpMiddleware } from './http-state.ts';

/**
 * One line per request. The path is logged without its query string: `?access_token=` is a secret,
 * and filters may hold personal data.
 */
export function accessLog(logger: Logger): HttpMiddleware {
  return async (ctx, next) => {
    const started = performance.now();
    try {
      await next();
    } finally {
      logger.info(
        {
          requestId: ctx.state.requestId,
          method: ctx.method,
          path: ctx.path,
          status: ctx.status,
          ms: Math.round((performance.now() - started) * 10) / 10,
        },
        'request',
      );
    }
  };
}
