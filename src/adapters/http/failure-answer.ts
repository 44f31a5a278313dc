import type { Logger } from 'pino';
import type { Metrics } from '../../application/ports/metrics.ts';
import { databaseFailureOf } from './database-failure.ts';
import { type ErrorResponse, errorResponse } from './error-response.ts';
import type { HttpContext } from './http-state.ts';
import { setJsonBody } from './json-answer.ts';

/**
 * What describes the answer a failure replaced (a file's type, name, ETag and date on /assets, set before
 * its range turned out unsatisfiable or its bytes failed to open): the error body is JSON, and none of
 * them is true of it.
 */
const REPLACED_BODY_HEADERS = ['Content-Type', 'Content-Disposition', 'ETag', 'Last-Modified'] as const;

/**
 * Answers a request that failed with the contract's error body (and logs the failure when unexpected). Other
 * headers set before the failure are kept on purpose (`Allow`, security headers, `X-Request-Id`), but
 * `Cache-Control` goes back to `no-store`: an answer that may be revalidated (an asset's `private, no-cache`)
 * stops being one once it fails, and no cache may keep an error (docs/api.md §1).
 */
export function answerFailure(ctx: HttpContext, error: unknown, logger: Logger, metrics: Metrics): void {
  const response = failureAnswer(error, ctx.state.requestId, metrics);
  if (response.unexpected) {
    logger.error(
      { err: error, requestId: ctx.state.requestId, method: ctx.method, path: ctx.path },
      'request failed',
    );
  }
  for (const header of REPLACED_BODY_HEADERS) ctx.remove(header);
  ctx.set('Cache-Control', 'no-store');
  ctx.set(response.headers);
  ctx.status = response.status;
  setJsonBody(ctx, response.body);
}

/**
 * The contract's answer to a failure that reaches a caller, the database failure behind it (if any)
 * counted: the one way to an error answer, for the answers Koa writes and for those @tus/server writes
 * itself (the resumable uploads').
 */
export function failureAnswer(error: unknown, requestId: string, metrics: Metrics): ErrorResponse {
  const failure = databaseFailureOf(error);
  if (failure) metrics.databaseFailed(failure);
  return errorResponse(error, requestId);
}
