import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * `Expect: 100-continue` asks the server whether the body is wanted before it is sent. Node says yes at
 * once unless told otherwise, before any route could refuse the request: a client then uploads a body
 * over the limit, or one a 401 or 404 will throw away. Here `100 Continue` goes out when something first
 * reads the body, so a request answered without reading it (413 for a Content-Length over the route's
 * limit, 401, 404…) gets its answer alone, and Node closes that connection rather than wait for a body the
 * client will not send. Whatever reads a body (JSON, multipart, an import, a resumable upload) reads it
 * through the stream's `_read`, which is where the answer is given.
 */
export function continueWhenRead(request: IncomingMessage, response: ServerResponse): void {
  const read = request._read;
  request._read = function readAfterContinue(this: IncomingMessage, size: number) {
    request._read = read;
    if (!response.headersSent) response.writeContinue();
    read.call(this, size);
  };
}
