import { randomUUID } from 'node:crypto';
import type { HttpContext } from './http-state.ts';

// An id from a proxy or client is reused so one request can be followed across systems, but only a
// short, plain one: it is echoed into headers and logs, where anything else could forge lines.
const ACCEPTABLE = /^[A-Za-z0-9._:-]{1,128}$/;

export const REQUEST_ID_HEADER = 'X-Request-Id';

/** Names the request (`ctx.state.requestId`) and echoes the name in the answer's `X-Request-Id`. */
export function nameRequest(ctx: HttpContext): void {
  const incoming = ctx.get(REQUEST_ID_HEADER);
  const id = ACCEPTABLE.test(incoming) ? incoming : randomUUID();
  ctx.state.requestId = id;
  ctx.set(REQUEST_ID_HEADER, id);
}
