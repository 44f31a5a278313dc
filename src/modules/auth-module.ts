import { ContainerModule } from 'inversify';
import { z } from 'zod';
import type { AppConfig } from '../adapters/config/config-schema.ts';
import type { HttpRoutes } from '../adapters/http/http-routes.ts';
import { errorsOf } from '../adapters/http/openapi/error-responses.ts';
import { jsonBody, NO_TOKEN, schemaRef } from '../adapters/http/openapi/openapi-part.ts';
import type { JsonSchema } from '../adapters/http/openapi/openapi-types.ts';
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
const mode = z.literal('json', { error: 'Only mode "json" is supported.' }).optional();
const loginBody = z.object({ email: z.string(), password: z.string(), mode });
const refreshBody = z.object({ refresh_token: z.string(), mode });

const refreshBodySchema: JsonSchema = {
  type: 'object',
  required: ['refresh_token'],
  properties: { refresh_token: { type: 'string' }, mode: { const: 'json' } },
};

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
      ),
  );
  bind(LogoutHandler, (get) => new LogoutHandler(get(TYPES.RefreshTokenRepository), get(TYPES.Clock)));
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
          const command = { email: body.email, password: body.password, clientAddress: ctx.ip };
          respond.tokenPair(ctx, await login.execute(null, command));
        });
        router.post('/auth/refresh', async (ctx) => {
          const body = await readBody(ctx, refreshBody);
          respond.tokenPair(ctx, await refresh.execute(null, { refreshToken: body.refresh_token }));
        });
        router.post('/auth/logout', async (ctx) => {
          const body = await readBody(ctx, refreshBody);
          await logout.execute(null, { refreshToken: body.refresh_token });
          respond.noContent(ctx);
        });
      },
      openApi: ({ shapes }) => ({
        tags: ['auth'],
        schemas: {
          TokenPair: {
            type: 'object',
            required: ['access_token', 'expires', 'refresh_token'],
            properties: {
              access_token: { type: 'string', description: 'Send it as `Authorization: Bearer <token>`.' },
              expires: { type: 'integer', description: shapes.expires },
              refresh_token: {
                type: 'string',
                description: 'Spent by /auth/refresh, which answers a new pair.',
              },
            },
          },
        },
        paths: {
          '/auth/login': {
            post: {
              operationId: 'login',
              summary: 'Log in',
              description: 'Answers a token pair; use its `access_token` with "Authorize".',
              tags: ['auth'],
              security: NO_TOKEN,
              requestBody: jsonBody({
                type: 'object',
                required: ['email', 'password'],
                properties: {
                  email: { type: 'string' },
                  password: { type: 'string' },
                  mode: { const: 'json' },
                },
              }),
              responses: {
                200: shapes.ok('A token pair.', schemaRef('TokenPair')),
                ...errorsOf(400, 401, 429),
              },
            },
          },
          '/auth/refresh': {
            post: {
              operationId: 'refresh',
              summary: 'Trade a refresh token for a new pair',
              tags: ['auth'],
              security: NO_TOKEN,
              requestBody: jsonBody(refreshBodySchema),
              responses: {
                200: shapes.ok('A new token pair.', schemaRef('TokenPair')),
                ...errorsOf(400, 401),
              },
            },
          },
          '/auth/logout': {
            post: {
              operationId: 'logout',
              summary: 'End the session of a refresh token',
              tags: ['auth'],
              security: NO_TOKEN,
              requestBody: jsonBody(refreshBodySchema),
              responses: { 204: { description: 'Logged out.' }, ...errorsOf(400, 401) },
            },
          },
        },
      }),
    };
  });
});
