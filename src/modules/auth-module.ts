import { ContainerModule } from 'inversify';
import { z } from 'zod';
import type { AppConfig } from '../adapters/config/config-schema.ts';
import { requestOrigin } from '../adapters/http/authenticated.ts';
import type { HttpRoutes } from '../adapters/http/http-routes.ts';
import { tokenPairAnswer } from '../adapters/http/openapi/answer-schemas.ts';
import { mustBe } from '../adapters/http/payload-issue-message.ts';
import { LoginHandler } from '../application/auth/login.ts';
import { LogoutHandler } from '../application/auth/logout.ts';
import { RefreshSessionHandler } from '../application/auth/refresh-session.ts';
import { ResolveAccountabilityHandler } from '../application/auth/resolve-accountability.ts';
import { SuccessorSeal } from '../application/auth/successor-seal.ts';
import { TokenPairIssuer } from '../application/auth/token-pair.ts';
import { factoryBinder } from './factory-binder.ts';
import { TYPES } from './service-identifiers.ts';

// docs/api.md §3: "json" is the only mode until cookie mode exists. Other unknown keys (e.g. the `otp`
// that @directus/sdk sends) are stripped, not refused, hence plain `z.object`.
const mode = z.literal('json', { error: mustBe('"json", the only mode supported so far') }).optional();
// `mode` first: its issue is the one answered, and a client in cookie or session mode leaves out the
// refresh token on purpose, so the mode is the cause to name.
const loginBody = z.object({ mode, email: z.string(), password: z.string() });
const refreshBody = z.object({ mode, refresh_token: z.string() });

/** Logging in, refreshing and logging out, and turning a presented token into the caller. */
export const authModule = new ContainerModule((options) => {
  const bind = factoryBinder(options);
  bind(
    TokenPairIssuer,
    (get) =>
      new TokenPairIssuer(
        get(TYPES.AccessTokens),
        get(TYPES.RefreshTokenRepository),
        get(TYPES.AuthSettings),
      ),
  );
  bind(
    LoginHandler,
    (get) =>
      new LoginHandler(
        get(TYPES.UserRepository),
        get(TYPES.PasswordHasher),
        get(TokenPairIssuer),
        get(TYPES.Clock),
        get(TYPES.LoginThrottle),
        get(TYPES.Metrics),
        get(TYPES.ActivityLog),
      ),
  );
  bind(
    RefreshSessionHandler,
    (get) =>
      new RefreshSessionHandler(
        get(TYPES.RefreshTokenRepository),
        get(TYPES.UserRepository),
        get(TokenPairIssuer),
        new SuccessorSeal(get<AppConfig>(TYPES.Config).auth.secret),
        get(TYPES.Clock),
        get(TYPES.AuthSettings),
        get(TYPES.ActivityLog),
      ),
  );
  bind(
    LogoutHandler,
    (get) => new LogoutHandler(get(TYPES.RefreshTokenRepository), get(TYPES.Clock), get(TYPES.ActivityLog)),
  );
  bind(
    ResolveAccountabilityHandler,
    (get) =>
      new ResolveAccountabilityHandler(
        get(TYPES.AccessTokens),
        get(TYPES.UserRepository),
        get(TYPES.RoleRepository),
        get(TYPES.RefreshTokenRepository),
        get(TYPES.Clock),
        get(TYPES.AuthSettings),
      ),
  );

  bind<HttpRoutes>(TYPES.HttpRoutes, (get) => {
    const login = get(LoginHandler);
    const refresh = get(RefreshSessionHandler);
    const logout = get(LogoutHandler);
    return {
      /**
       * /auth/* never resolves the caller: an expired or foreign access token in the Authorization
       * header must not stand in the way of logging in, refreshing or logging out.
       */
      register(router, { readBody, respond }) {
        router.post('/auth/login', async (ctx) => {
          const body = await readBody(ctx, loginBody);
          const command = {
            email: body.email,
            password: body.password,
            clientAddress: ctx.ip,
            origin: requestOrigin(ctx),
          };
          respond.tokenPair(ctx, await login.execute(null, command));
        });
        router.post('/auth/refresh', async (ctx) => {
          const body = await readBody(ctx, refreshBody);
          respond.tokenPair(
            ctx,
            await refresh.execute(null, { refreshToken: body.refresh_token, origin: requestOrigin(ctx) }),
          );
        });
        router.post('/auth/logout', async (ctx) => {
          const body = await readBody(ctx, refreshBody);
          await logout.execute(null, { refreshToken: body.refresh_token, origin: requestOrigin(ctx) });
          respond.noContent(ctx);
        });
      },
      api: ({ profile }) => {
        const tokenPair = { status: 200, description: 'A token pair.', body: tokenPairAnswer(profile) };
        const operation = { method: 'post', tag: 'auth', audience: 'anyone', tokenBlind: true } as const;
        return {
          tags: [{ name: 'auth', description: 'Logging in and out, and refreshing the access token.' }],
          schemas: { TokenPair: tokenPair.body },
          operations: [
            {
              ...operation,
              path: '/auth/login',
              operationId: 'login',
              summary: 'Log in',
              description: 'Answers a token pair; use its `access_token` with "Authorize".',
              body: loginBody,
              answers: [tokenPair],
              errors: [400, 401, 429],
            },
            {
              ...operation,
              path: '/auth/refresh',
              operationId: 'refresh',
              summary: 'Trade a refresh token for a new pair',
              body: refreshBody,
              answers: [{ ...tokenPair, description: 'A new token pair.' }],
              errors: [400, 401],
            },
            {
              ...operation,
              path: '/auth/logout',
              operationId: 'logout',
              summary: 'End the session of a refresh token',
              body: refreshBody,
              answers: [{ status: 204, description: 'Logged out.' }],
              errors: [400, 401],
            },
          ],
        };
      },
    };
  });
});
