import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import type { Metrics } from '../../application/ports/metrics.ts';
import { logAccess } from './access-log.ts';
import type { HttpMiddleware } from './http-state.ts';
import { nameRequest } from './request-id.ts';
import { countRequest } from './request-metrics.ts';
import { setSecurityHeaders } from './security-headers.ts';

/**
 * The outermost middleware, the frame every request runs in: the request id first (everything logs it), the
 * security headers before anything can fail, then, once the request is answered, its metrics and its access-log
 * line (outside the error handler, so both see the final status). One middleware rather than four: each Koa
 * layer is an async function, a promise and a dispatch per request, and these four share one clock reading.
 */
export function requestFrame(logger: Logger, metrics: Metrics): HttpMiddleware {
  return async (ctx, next) => {
    const started = performance.now();
    nameRequest(ctx);
    try {
      setSecurityHeaders(ctx);
      await next();
    } finally {
      const ms = performance.now() - started;
      try {
        countRequest(metrics, ctx, ms / 1000);
      } finally {
        logAccess(logger, ctx, ms);
      }
    }
  };
}
