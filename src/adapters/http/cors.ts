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

/**
 * Headers a browser script may read beyond the CORS-safelisted ones (docs/api.md §1): list metadata, the
 * request id to quote, throttling, the 401 challenge; an asset's name, range and validators (§15); what a
 * TUS client reads to resume an upload (§15).
 */
const EXPOSED = [
  'X-Total-Count',
  'X-Filter-Count',
  'X-Estimated-Total-Count',
  'X-Estimated-Filter-Count',
  'X-Next-Cursor',
  'X-Request-Id',
  'Retry-After',
  'WWW-Authenticate',
  'Content-Disposition',
  'Content-Range',
  'Accept-Ranges',
  'ETag',
  'Last-Modified',
  'Location',
  'Upload-Offset',
  'Upload-Length',
  'Upload-Expires',
  'Upload-Metadata',
  'Tus-Resumable',
  'Tus-Version',
  'Tus-Extension',
  'Tus-Max-Size',
];

/**
 * Request headers a browser script may send (docs/api.md §1): the ones the API reads. A fixed list rather
 * than an echo of whatever a preflight asks for, so a header the API never reads is refused by the browser.
 */
const ALLOWED_REQUEST_HEADERS = [
  'Authorization',
  'Content-Type',
  'Content-Encoding',
  'Accept',
  'X-Request-Id',
  'Range',
  'If-Range',
  'If-Match',
  'If-None-Match',
  'If-Modified-Since',
  'If-Unmodified-Since',
  'Last-Event-ID',
  'Tus-Resumable',
  'Upload-Length',
  'Upload-Offset',
  'Upload-Metadata',
  'X-HTTP-Method-Override',
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
    allowHeaders: ALLOWED_REQUEST_HEADERS,
    exposeHeaders: EXPOSED,
    credentials: settings.credentials,
    maxAge: Math.round(settings.maxAgeMs / 1000),
    // The headers it set stay on the answer when a failure is answered below it (the frame keeps them); its
    // own copy onto the error would overwrite the error's headers (an `Allow`) and `Vary`.
    keepHeadersOnError: false,
  }) as HttpMiddleware;
}
