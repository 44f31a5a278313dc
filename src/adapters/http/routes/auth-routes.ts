import type { Router } from '@koa/router';
import { z } from 'zod';
import type { HttpState } from '../http-state.ts';
import type { RouteKit } from './route-kit.ts';

// API.md §3: "json" is the only mode until cookie mode exists. Other unknown keys (e.g. the `otp`
// that @directus/sdk sends) are stripped, not refused, hence plain `z.object`.
const mode = z.literal('json', { error: 'Only mode "json" is supported.' }).optional();
const loginBody = z.object({ email: z.string(), password: z.string(), mode });
const refreshBody = z.object({ refresh_token: z.string(), mode });

/**
 * /auth/* never resolves the caller: an expired or foreign access token in the Authorization
 * header must not stand in the way of logging in, refreshing or logging out.
 */
export function registerAuthRoutes(
  router: Router<HttpState>,
  { handlers, readBody, respond }: RouteKit,
): void {
  router.post('/auth/login', async (ctx) => {
    const body = await readBody(ctx, loginBody);
    const command = { email: body.email, password: body.password, clientAddress: ctx.ip };
    respond.tokenPair(ctx, await handlers.login.execute(null, command));
  });
  router.post('/auth/refresh', async (ctx) => {
    const body = await readBody(ctx, refreshBody);
    respond.tokenPair(ctx, await handlers.refreshSession.execute(null, { refreshToken: body.refresh_token }));
  });
  router.post('/auth/logout', async (ctx) => {
    const body = await readBody(ctx, refreshBody);
    await handlers.logout.execute(null, { refreshToken: body.refresh_token });
    respond.noContent(ctx);
  });
}
