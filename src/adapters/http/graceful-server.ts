import {
  createServer,
  type IncomingMessage,
  type RequestListener,
  type Server,
  type ServerResponse,
} from 'node:http';
import { answerClientError, answeredMissingHost } from './client-error-answer.ts';
import { continueWhenRead } from './continue-when-read.ts';

/** An HTTP server that can be stopped without dropping the requests it is answering. */
export type GracefulServer = {
  readonly server: Server;
  /**
   * Stops accepting connections and closes idle keep-alive ones; requests in flight get `timeoutMs` to
   * finish, answered with `Connection: close` so their clients do not send another on the same socket.
   * Then whatever is left is destroyed. Resolves once every connection is gone.
   */
  drain(timeoutMs: number): Promise<void>;
};

export function createGracefulServer(listener: RequestListener): GracefulServer {
  const inFlight = new Set<ServerResponse>();
  let draining = false;
  const server = createServer({ requireHostHeader: false }, (request, response) => {
    if (answeredMissingHost(request, response)) return;
    inFlight.add(response);
    response.once('close', () => inFlight.delete(response));
    if (draining) closeAfter(response);
    listener(request, response);
  });
  server.on('clientError', answerClientError);
  // Listening for it keeps Node from sending `100 Continue` itself (continue-when-read.ts).
  server.on('checkContinue', (request: IncomingMessage, response: ServerResponse) => {
    continueWhenRead(request, response);
    server.emit('request', request, response);
  });

  // A connection whose response had gone out before draining began is kept alive by Node when that
  // response ends; closing idle connections again at each end lets `server.close` complete.
  const closeAfter = (response: ServerResponse) => {
    if (!response.headersSent) response.setHeader('Connection', 'close');
    response.once('finish', () => setImmediate(() => server.closeIdleConnections()));
  };

  return {
    server,
    drain(timeoutMs) {
      draining = true;
      for (const response of inFlight) closeAfter(response);
      return new Promise<void>((resolve) => {
        const deadline = setTimeout(() => server.closeAllConnections(), timeoutMs);
        server.close(() => {
          clearTimeout(deadline);
          resolve();
        });
      });
    },
  };
}
