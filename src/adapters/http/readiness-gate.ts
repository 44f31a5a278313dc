import type { Readiness } from '../../application/server/readiness.ts';
import { serviceUnavailable } from '../../domain/errors.ts';
import type { HttpContext } from './http-state.ts';

/** Answers while the server is starting: orchestrators ask it when the server will be ready. */
const ALWAYS_OPEN = new Set(['/server/health']);

/**
 * While start-up work is pending (the database was unreachable at start), every other request is
 * answered 503 SERVICE_UNAVAILABLE at once, without reaching a handler or the database.
 */
export function assertReady(ctx: HttpContext, readiness: Readiness): void {
  if (!readiness.isReady && !ALWAYS_OPEN.has(ctx.path)) throw serviceUnavailable();
}
