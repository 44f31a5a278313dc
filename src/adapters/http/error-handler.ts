import type { Logger } from 'pino';
import { errorResponse } from './error-response.ts';
import type { HttpMiddleware } from './http-state.ts';

/**
 * Catches everything below it and answers with the contract's error body. Headers set before the
 * failure are kept on purpose (`Allow`, security headers, `X-Request-Id`).
 */
export function errorHandler(logger: Logger): HttpMiddleware {
  return async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      const response = errorResponse(error, ctx.state.requestId);
      if (response.unexpected) {
        logger.error(
          { err: error, requestId: ctx.state.requestId, method: ctx.method, path: ctx.path },
          'request failed',
        );
      }
      ctx.set(response.headers);
      ctx.status = response.status;
      ctx.body = response.body;
    }
  };
}
