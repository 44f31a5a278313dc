import type { AccessTokenGrant, TokenPair } from '../../application/auth/token-pair.ts';
import type { HttpSettings } from './http-settings.ts';
import type { HttpContext } from './http-state.ts';
import { setJsonBody } from './json-answer.ts';

/** Every successful answer goes through here, so the response profile is decided in one place. */
export type Respond = {
  send(ctx: HttpContext, body: unknown, status?: number): void;
  /** A body that is already JSON text (built by PostgreSQL): written as is, never parsed again. */
  sendJson(ctx: HttpContext, json: string, meta?: ListMeta): void;
  noContent(ctx: HttpContext): void;
  /** A write's answer: the items the caller may read, or 204 when there are none it may read. */
  written(ctx: HttpContext, result: { json: string } | null): void;
  tokenPair(ctx: HttpContext, pair: TokenPair): void;
  /** An access token without a refresh token (a role preview), its `expires` as in a token pair. */
  accessToken(ctx: HttpContext, grant: AccessTokenGrant): void;
};

/**
 * List metadata (docs/api.md §4 `meta`): headers in the plain profile, a `meta` object in the directus one.
 * `next` is the cursor of the following page, null after the last one.
 */
export type ListMeta = {
  total_count?: number;
  filter_count?: number;
  estimated_total_count?: number;
  estimated_filter_count?: number;
  next?: string | null;
};

/** The counts and cursor a list handler answers, as a list's metadata. */
export function listMetaOf(page: {
  readonly totalCount?: number;
  readonly filterCount?: number;
  readonly estimatedTotalCount?: number;
  readonly estimatedFilterCount?: number;
  readonly next?: string | null;
}): ListMeta {
  return {
    total_count: page.totalCount,
    filter_count: page.filterCount,
    estimated_total_count: page.estimatedTotalCount,
    estimated_filter_count: page.estimatedFilterCount,
    next: page.next,
  };
}

/** Plain-profile headers of the list metadata; `next` is absent from the headers after the last page. */
const META_HEADERS = [
  ['total_count', 'X-Total-Count'],
  ['filter_count', 'X-Filter-Count'],
  ['estimated_total_count', 'X-Estimated-Total-Count'],
  ['estimated_filter_count', 'X-Estimated-Filter-Count'],
  ['next', 'X-Next-Cursor'],
] as const;

export function responder({ profile, accessTokenTtlMs }: HttpSettings): Respond {
  const write = (ctx: HttpContext, status: number, body: unknown) => {
    ctx.status = status;
    // docs/api.md §1: the directus profile wraps 2xx bodies (only those) so @directus/sdk can read them.
    setJsonBody(ctx, profile === 'directus' && status < 300 ? { data: body } : body);
  };
  const sendJson: Respond['sendJson'] = (ctx, json, meta = {}) => {
    ctx.status = 200;
    // The full header value, set as is: Koa's `ctx.type` would look the same text up in its mime tables.
    ctx.set('Content-Type', 'application/json; charset=utf-8');
    if (profile === 'directus') {
      const hasMeta = Object.values(meta).some((value) => value !== undefined);
      ctx.body = `{"data":${json}${hasMeta ? `,"meta":${JSON.stringify(meta)}` : ''}}`;
      return;
    }
    for (const [key, header] of META_HEADERS) {
      const value = meta[key];
      if (value !== undefined && value !== null) ctx.set(header, String(value));
    }
    ctx.body = json;
  };
  const accessTokenMembers = (grant: AccessTokenGrant) => ({
    access_token: grant.accessToken,
    // docs/api.md §1: the seed's `expires` is the expiry instant; Directus clients expect the lifetime.
    expires: profile === 'directus' ? accessTokenTtlMs : grant.expires,
  });
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
      write(ctx, 200, { ...accessTokenMembers(pair), refresh_token: pair.refreshToken }),
    accessToken: (ctx, grant) => write(ctx, 200, accessTokenMembers(grant)),
  };
}
