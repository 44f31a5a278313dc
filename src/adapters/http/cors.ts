import koaCors from '@koa/cors';
import type { Context } from 'koa';
import type { HttpMiddleware } from './http-state.ts';

export type CorsSettings = {
  enabled: boolean;
  /** Exact origins allowed; `*` allows any origin (answered as `*`, so never with credentials). */
  origins: ReadonlyArray<string>;
  credentials: boolean;
  maxAgeMs: number;
};

/** Headers a browser script may read: pagination counts, the request id to quote, throttling. */
const EXPOSED = [
  'X-Total-Count',
  'X-Filter-Count',
  'X-Estimated-Total-Count',
  'X-Estimated-Filter-Count',
  'X-Next-Cursor',
  'X-Request-Id',
  'Retry-After',
];

/**
 * CORS is off unless configured: then no `Access-Control-*` header is ever sent and browsers keep
 * other sites' scripts out. When on, only listed origins are answered; an unlisted one gets no CORS
 * headers at all (the browser refuses), and the request itself is served as usual.
 */
export function corsPolicy(settings: CorsSettings): HttpMiddleware | null {
  if (!settings.enabled || settings.origins.length === 0) return null;
  const anyOrigin = settings.origins.includes('*') && !settings.credentials;
  const allowed = new Set(settings.origins);
  return koaCors({
    origin: (ctx: Context) => {
      if (anyOrigin) return '*';
      const origin = ctx.get('Origin');
      return allowed.has(origin) ? origin : '';
    },
    allowMethods: ['GET', 'HEAD', 'POST', 'PATCH', 'DELETE', 'SEARCH'],
    exposeHeaders: EXPOSED,
    credentials: settings.credentials,
    maxAge: Math.round(settings.maxAgeMs / 1000),
  }) as HttpMiddleware;
}
