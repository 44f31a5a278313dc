import { randomUUID } from 'node:crypto';
import type { HttpMiddleware } from './http-state.ts';

// An id from a proxy or client is reused so one request can be followed across systems, but only a
// short, plain one: it is echoed into headers and logs, where anything else could forge lines.
const ACCEPTABLE = /^[A-Za-z0-9._:-]{1,128}$/;

export const REQUEST_ID_HEADER = 'X-Request-Id';

export const requestId: HttpMiddleware = async (ctx, next) => {
  const incoming = ctx.get(REQUEST_ID_HEADER);
  ctx.state.requestId = ACCEPTABLE.test(incoming) ? incoming : randomUUID();
  ctx.set(REQUEST_ID_HEADER, ctx.state.requestId);
  await next();
};
