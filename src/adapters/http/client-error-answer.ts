import { randomUUID } from 'node:crypto';
import { type IncomingMessage, type ServerResponse, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';

/** The contract's error body (docs/api.md §2). */
type ErrorBody = { errors: Array<{ message: string; extensions: Record<string, unknown> }> };

/**
 * The headers of an error answered before Koa runs: the contract's JSON with every answer's security
 * headers, on a connection that closes.
 */
function earlyHeaders(text: string, extra: Readonly<Record<string, string>>): Record<string, string> {
  return {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(text)),
    'X-Request-Id': randomUUID(),
    'Cache-Control': 'no-store',
    'Referrer-Policy': 'no-referrer',
    'X-Content-Type-Options': 'nosniff',
    'X-Frame-Options': 'DENY',
    ...extra,
    Connection: 'close',
  };
}

const bodyOf = (code: string, message: string): ErrorBody => ({
  errors: [{ message, extensions: { code } }],
});

/**
 * An error written as raw HTTP/1.1 on a socket no response owns (one Node's parser refused, an upgrade
 * refused), then the socket is ended. `headers` adds to the usual ones (`Retry-After`…).
 */
export function answerRawError(
  socket: Duplex,
  status: number,
  headers: Readonly<Record<string, string>>,
  body: ErrorBody,
): void {
  const text = JSON.stringify(body);
  const head = Object.entries(earlyHeaders(text, headers)).map(([name, value]) => `${name}: ${value}`);
  socket.end([`HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}`, ...head, '', text].join('\r\n'));
}

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
  const [status, code, message] =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'REQUEST_TOO_LARGE', 'Request headers are too large.']
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'INVALID_PAYLOAD', 'The request took too long to arrive.']
        : [400, 'INVALID_PAYLOAD', 'Malformed HTTP request.'];
  answerRawError(socket, status, {}, bodyOf(code, message));
}

/**
 * An HTTP/1.1 request without `Host` must be refused with 400 (RFC 9112 §3.2). Node does so itself with an
 * empty body unless the server is made with `requireHostHeader: false`; the server is, and refuses it here
 * in the contract's shape instead. HTTP/1.0 has no Host header to require.
 */
export function answeredMissingHost(request: IncomingMessage, response: ServerResponse): boolean {
  if (request.httpVersion !== '1.1' || request.headers.host !== undefined) return false;
  answerEarly(response, 400, 'INVALID_PAYLOAD', 'An HTTP/1.1 request needs a Host header.');
  return true;
}

/** Refuses a request before the app sees it, on its response, in the contract's shape; the connection closes. */
export function answerEarly(response: ServerResponse, status: number, code: string, message: string): void {
  const text = JSON.stringify(bodyOf(code, message));
  response.writeHead(status, earlyHeaders(text, {})).end(text);
}
