import type { TokenPair } from '../../application/auth/token-pair.ts';
import type { HttpSettings } from './http-app-dependencies.ts';
import type { HttpContext } from './http-state.ts';

/** Every successful answer goes through here, so the response profile is decided in one place. */
export type Respond = {
  send(ctx: HttpContext, body: unknown, status?: number): void;
  noContent(ctx: HttpContext): void;
  tokenPair(ctx: HttpContext, pair: TokenPair): void;
};

export function responder(profile: HttpSettings['profile']): Respond {
  const write = (ctx: HttpContext, status: number, body: unknown) => {
    ctx.status = status;
    // API.md §1: the directus profile wraps 2xx bodies (only those) so @directus/sdk can read them.
    // Its other difference, `expires` as a lifetime, needs the TTL in HttpSettings: not done yet.
    ctx.body = profile === 'directus' && status < 300 ? { data: body } : body;
  };
  return {
    send: (ctx, body, status = 200) => write(ctx, status, body),
    noContent: (ctx) => {
      ctx.status = 204;
      ctx.body = null;
    },
    tokenPair: (ctx, pair) =>
      write(ctx, 200, {
        access_token: pair.accessToken,
        expires: pair.expires,
        refresh_token: pair.refreshToken,
      }),
  };
}
