import type { TokenPair } from '../../application/auth/token-pair.ts';
import type { HttpSettings } from './http-settings.ts';
import type { HttpContext } from './http-state.ts';

/** Every successful answer goes through here, so the response profile is decided in one place. */
export type Respond = {
  send(ctx: HttpContext, body: unknown, status?: number): void;
  /** A body that is already JSON text (built by PostgreSQL): written as is, never parsed again. */
  sendJson(ctx: HttpContext, json: string, meta?: ListMeta): void;
  noContent(ctx: HttpContext): void;
  /** A write's answer: the items the caller may read, or 204 when there are none it may read. */
  written(ctx: HttpContext, result: { json: string } | null): void;
  tokenPair(ctx: HttpContext, pair: TokenPair): void;
};

/** List counts (docs/api.md §4 `meta`): headers in the plain profile, a `meta` object in the directus one. */
export type ListMeta = { total_count?: number; filter_count?: number };

export function responder({ profile, accessTokenTtlMs }: HttpSettings): Respond {
  const write = (ctx: HttpContext, status: number, body: unknown) => {
    ctx.status = status;
    // docs/api.md §1: the directus profile wraps 2xx bodies (only those) so @directus/sdk can read them.
    ctx.body = profile === 'directus' && status < 300 ? { data: body } : body;
  };
  const sendJson: Respond['sendJson'] = (ctx, json, meta = {}) => {
    ctx.status = 200;
    ctx.type = 'application/json; charset=utf-8';
    if (profile === 'directus') {
      const hasMeta = meta.total_count !== undefined || meta.filter_count !== undefined;
      ctx.body = `{"data":${json}${hasMeta ? `,"meta":${JSON.stringify(meta)}` : ''}}`;
      return;
    }
    if (meta.total_count !== undefined) ctx.set('X-Total-Count', String(meta.total_count));
    if (meta.filter_count !== undefined) ctx.set('X-Filter-Count', String(meta.filter_count));
    ctx.body = json;
  };
  const noContent: Respond['noContent'] = (ctx) => {
    ctx.status = 204;
    ctx.body = null;
  };
  return {
    send: (ctx, body, status = 200) => write(ctx, status, body),
    sendJson,
    noContent,
    written: (ctx, result) => {
      if (result) sendJson(ctx, result.json);
      else noContent(ctx);
    },
    tokenPair: (ctx, pair) =>
      write(ctx, 200, {
        access_token: pair.accessToken,
        // docs/api.md §1: the seed's `expires` is the expiry instant; Directus clients expect the lifetime.
        expires: profile === 'directus' ? accessTokenTtlMs : pair.expires,
        refresh_token: pair.refreshToken,
      }),
  };
}
