/**
 * The codes with which Node reports that the other end closed the connection before the answer was
 * written out: a reset (ECONNRESET), a write to a closed socket (EPIPE), an aborted connection
 * (ECONNABORTED), or a body stream piped into a response that closed first (ERR_STREAM_PREMATURE_CLOSE).
 */
const CLIENT_GONE_CODES = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED', 'ERR_STREAM_PREMATURE_CLOSE']);

/**
 * Whether `error` only says the client went away mid-answer (a download cancelled, a tab closed): that
 * is the client's choice, not a fault of the server, and nothing can be answered to it any more.
 */
export function isClientGone(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && CLIENT_GONE_CODES.has(code);
}
