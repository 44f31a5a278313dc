import { IncomingMessage, type Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { answerEarly } from './client-error-answer.ts';

/**
 * Serves a request that asks to upgrade to something this server does not speak there — `Upgrade: h2c`, as
 * `curl --http2` sends on http:, or a WebSocket handshake on another path than the socket's — as the plain
 * request it also is: a server may ignore Upgrade (RFC 9110 §7.8). Node hands every request that carries an
 * Upgrade to the server's 'upgrade' listeners once there is one, and its parser leaves the connection: not
 * served here, it would never be answered, nor its connection closed. It runs through the server's own
 * request listeners, then the connection is closed, as no parser is left to read another request on it.
 */
export function serveIgnoringUpgrade(
  server: Server,
  upgrade: IncomingMessage,
  socket: Socket,
  head: Buffer,
): void {
  const request = plainRequest(upgrade, socket);
  const response = new ServerResponse(request);
  response.shouldKeepAlive = false;
  response.assignSocket(socket);
  // Node no longer watches a connection it handed over: a client that stops sending is let go here.
  if (server.requestTimeout > 0) socket.setTimeout(server.requestTimeout, () => socket.destroy());
  response.once('finish', () => {
    response.detachSocket(socket);
    socket.end();
  });
  if (request.headers['transfer-encoding'] !== undefined) {
    // No parser is left to decode chunks: such a body could only be misread.
    answerEarly(
      response,
      400,
      'INVALID_PAYLOAD',
      'A request that asks to upgrade sends its body with Content-Length.',
    );
    return;
  }
  feedBody(request, socket, head, Number(request.headers['content-length'] ?? 0));
  server.emit('request', request, response);
}

/** The same request line and headers, on a message whose body is still to come (Node ended the upgrade's). */
function plainRequest(upgrade: IncomingMessage, socket: Socket): IncomingMessage {
  const request = new IncomingMessage(socket);
  request.httpVersionMajor = upgrade.httpVersionMajor;
  request.httpVersionMinor = upgrade.httpVersionMinor;
  request.httpVersion = upgrade.httpVersion;
  request.method = upgrade.method;
  request.url = upgrade.url;
  request.rawHeaders = upgrade.rawHeaders;
  request.headers = upgrade.headers;
  return request;
}

/** The body, `length` bytes: those that came with the head, then the socket's; nothing past them is read. */
function feedBody(request: IncomingMessage, socket: Socket, head: Buffer, length: number): void {
  let missing = Number.isSafeInteger(length) && length > 0 ? length : 0;
  const take = (chunk: Buffer) => {
    const part = chunk.subarray(0, missing);
    missing -= part.length;
    // Read as the app reads: its `_read` resumes the socket.
    if (part.length > 0 && !request.push(part)) socket.pause();
    if (missing === 0) {
      socket.off('data', take);
      request.complete = true;
      request.push(null);
    }
  };
  if (missing === 0) {
    take(Buffer.alloc(0));
    return;
  }
  socket.on('data', take);
  take(head);
}
