import { randomUUID } from 'node:crypto';
import type { Duplex } from 'node:stream';

/**
 * What Node's HTTP parser refuses before Koa runs (a request line with raw non-ASCII bytes, headers over
 * the size limit, a broken chunked body) is answered in the contract's shape and with the same security
 * headers as every other answer, instead of Node's bare `400 Bad Request`.
 */
export function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const [status, reason, code, message] =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'Request Header Fields Too Large', 'REQUEST_TOO_LARGE', 'Request headers are too large.']
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'Request Timeout', 'INVALID_PAYLOAD', 'The request took too long to arrive.']
        : [400, 'Bad Request', 'INVALID_PAYLOAD', 'Malformed HTTP request.'];
  const requestId = randomUUID();
  const body = JSON.stringify({ errors: [{ message, extensions: { code } }] });
  socket.end(
    [
      `HTTP/1.1 ${status} ${reason}`,
      'Content-Type: application/json; charset=utf-8',
      `Content-Length: ${Buffer.byteLength(body)}`,
      `X-Request-Id: ${requestId}`,
      'Cache-Control: no-store',
      'Referrer-Policy: no-referrer',
      'X-Content-Type-Options: nosniff',
      'X-Frame-Options: DENY',
      'Connection: close',
      '',
      body,
    ].join('\r\n'),
  );
}
