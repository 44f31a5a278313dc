import {
  createServer,
  type IncomingMessage,
  type RequestListener,
  type Server,
  ServerResponse,
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

const { writeHead } = ServerResponse.prototype;

/** How often a draining server closes the connections that have gone idle since it last looked. */
const IDLE_SWEEP_MS = 25;

export function createGracefulServer(listener: RequestListener): GracefulServer {
  let draining = false;
  // No set of the responses in flight: a container that every request enters and leaves keeps whole
  // requests alive across young-generation collections once V8 has moved its table to the old generation
  // (bench/NOTES.md §7.4). What draining needs of a response is asked of the response itself, when its
  // head goes out; the connections it leaves idle are swept.
  class DrainingAwareResponse extends ServerResponse {}
  // Every head goes out through writeHead, Node's implicit one included.
  DrainingAwareResponse.prototype.writeHead = function writeHeadWhileDraining(
    this: ServerResponse,
    ...args: unknown[]
  ) {
    // Answered while draining: the client must not send another request on this connection.
    if (draining && !this.headersSent) this.setHeader('Connection', 'close');
    return (writeHead as (...args: unknown[]) => ServerResponse).apply(this, args);
  } as ServerResponse['writeHead'];
  const server = createServer(
    { requireHostHeader: false, ServerResponse: DrainingAwareResponse },
    (request, response) => {
      if (answeredMissingHost(request, response)) return;
      listener(request, response);
    },
  );
  server.on('clientError', answerClientError);
  // Listening for it keeps Node from sending `100 Continue` itself (continue-when-read.ts).
  server.on('checkContinue', (request: IncomingMessage, response: ServerResponse) => {
    continueWhenRead(request, response);
    server.emit('request', request, response);
  });

  return {
    server,
    drain(timeoutMs) {
      draining = true;
      // A response that went out before draining began leaves its connection open and idle when it ends.
      const sweep = setInterval(() => server.closeIdleConnections(), IDLE_SWEEP_MS);
      return new Promise<void>((resolve) => {
        const deadline = setTimeout(() => server.closeAllConnections(), timeoutMs);
        server.close(() => {
          clearTimeout(deadline);
          clearInterval(sweep);
          resolve();
        });
      });
    },
  };
}
