import type { IncomingMessage } from 'node:http';

/**
 * The client address of a request that never reaches Koa (a WebSocket upgrade), read as Koa reads `ctx.ip`
 * for the routes (`proxy: http.trustProxy`, `maxIpsCount: 1`), so that every per-address limit counts the
 * same client: behind a trusted proxy, the address it appended last to `X-Forwarded-For`; otherwise, or
 * without the header, the peer's.
 */
export function clientAddress(request: IncomingMessage, trustProxy: boolean): string {
  const header = trustProxy ? request.headers['x-forwarded-for'] : undefined;
  const forwarded = Array.isArray(header) ? header.join(',') : (header ?? '');
  return forwarded.split(',').at(-1)?.trim() || request.socket.remoteAddress || '';
}
