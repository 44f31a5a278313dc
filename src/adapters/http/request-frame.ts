import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import type { Metrics } from '../../application/ports/metrics.ts';
import { accessLogOf } from './access-log.ts';
import type { Admission } from './admission.ts';
import { answerFailure } from './failure-answer.ts';
import type { HttpContext, HttpMiddleware } from './http-state.ts';
import { nameRequest } from './request-id.ts';
import { countRequest } from './request-metrics.ts';
import { setSecurityHeaders } from './security-headers.ts';
import { assertAnswered } from './unanswered-route.ts';

export type RequestFrameParts = {
  logger: Logger;
  metrics: Metrics;
  /** The CORS policy, when configured: it runs before admission, and a preflight it answers goes no further. */
  cors: HttpMiddleware | null;
  admission: Admission;
};

/**
 * The middleware every request runs in, around the router, in this order: the request id (everything logs
 * it) and the security headers before anything can fail; CORS headers; admission; then, once the router has
 * run, a route nobody answered turned into 404 or 405; every failure answered with the contract's error
 * body; last, with the final status, the request's metrics and its access-log line.
 *
 * One Koa layer rather than four (five with CORS): each is a dispatch per request, and most an async function
 * and its promise, on the path of every request (bench/NOTES.md §7.7).
 */
export function requestFrame({ logger, metrics, cors, admission }: RequestFrameParts): HttpMiddleware {
  const logAccess = accessLogOf(logger);
  const admitted = (ctx: HttpContext, next: () => Promise<unknown>) => {
    admission(ctx);
    return next();
  };
  return async (ctx, next) => {
    const started = performance.now();
    nameRequest(ctx);
    try {
      setSecurityHeaders(ctx);
      try {
        await (cors ? cors(ctx, () => admitted(ctx, next)) : admitted(ctx, next));
        assertAnswered(ctx);
      } catch (error) {
        answerFailure(ctx, error, logger, metrics);
      }
    } finally {
      const ms = performance.now() - started;
      try {
        countRequest(metrics, ctx, ms / 1000);
      } finally {
        logAccess(ctx, ms);
      }
    }
  };
}
