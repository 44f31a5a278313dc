import { randomUUID } from 'node:crypto';
import { type IncomingMessage, type ServerResponse, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';

/** An error answer given before Koa runs, in the contract's shape and with every answer's security headers. */
type EarlyAnswer = {
  readonly status: number;
  readonly reason: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
};

function earlyAnswer(status: number, reason: string, code: string, message: string): EarlyAnswer {
  const body = JSON.stringify({ errors: [{ message, extensions: { code } }] });
  return {
    status,
    reason,
    body,
    headers: {
      'Content-Type': 'application/json; charset=utf-8',
      'Content-Length': String(Buffer.byteLength(body)),
      'X-Request-Id': randomUUID(),
      'Cache-Control': 'no-store',
      'Referrer-Policy': 'no-referrer',
      'X-Content-Type-Options': 'nosniff',
      'X-Frame-Options': 'DENY',
      Connection: 'close',
    },
  };
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
  const { status, reason, headers, body } =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? earlyAnswer(
          431,
          'Request Header Fields Too Large',
          'REQUEST_TOO_LARGE',
          'Request headers are too large.',
        )
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? earlyAnswer(408, 'Request Timeout', 'INVALID_PAYLOAD', 'The request took too long to arrive.')
        : earlyAnswer(400, 'Bad Request', 'INVALID_PAYLOAD', 'Malformed HTTP request.');
  const head = Object.entries(headers).map(([name, value]) => `${name}: ${value}`);
  socket.end([`HTTP/1.1 ${status} ${reason}`, ...head, '', body].join('\r\n'));
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
  const { headers, body } = earlyAnswer(status, STATUS_CODES[status] ?? '', code, message);
  response.writeHead(status, headers).end(body);
}
