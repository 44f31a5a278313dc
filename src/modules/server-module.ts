import { ContainerModule } from 'inversify';
import type { AppConfig } from '../adapters/config/config-schema.ts';
import type { HttpRoutes } from '../adapters/http/http-routes.ts';
import { explorerAssets } from '../adapters/http/openapi/explorer-assets.ts';
import { EXPLORER_HTML, EXPLORER_SCRIPT } from '../adapters/http/openapi/explorer-page.ts';
import { NO_TOKEN, schemaRef } from '../adapters/http/openapi/openapi-part.ts';
import { ReadRules } from '../application/items/read-rules.ts';
import { WriteRules } from '../application/items/write-rules.ts';
import { CheckHealthHandler } from '../application/server/check-health.ts';
import { DescribeApiHandler } from '../application/server/describe-api.ts';
import { GetServerInfoHandler } from '../application/server/get-server-info.ts';
import { VERSION } from '../version.ts';
import { factoryBinder } from './factory-binder.ts';
import { TYPES } from './service-identifiers.ts';

/** /server/*: health, information and the OpenAPI document; and /docs, the explorer that reads it. */
export const serverModule = new ContainerModule((options) => {
  const bind = factoryBinder(options);
  bind(CheckHealthHandler, (get) => new CheckHealthHandler(get(TYPES.DatabaseHealth), get(TYPES.Readiness)));
  bind(
    GetServerInfoHandler,
    (get) => new GetServerInfoHandler(VERSION, get(TYPES.StartedAt), get(TYPES.Clock)),
  );
  bind(
    DescribeApiHandler,
    (get) =>
      new DescribeApiHandler(get(TYPES.SchemaCatalog), get(ReadRules), get(WriteRules), get(TYPES.Clock), {
        version: VERSION,
        limits: get(TYPES.QueryLimits),
        batchMax: get<AppConfig>(TYPES.Config).query.batchMax,
      }),
  );

  bind<HttpRoutes>(TYPES.HttpRoutes, (get) => {
    const checkHealth = get(CheckHealthHandler);
    const getServerInfo = get(GetServerInfoHandler);
    const describeApi = get(DescribeApiHandler);
    return {
      register(router, { authenticated, respond, openApiDocument }) {
        // Public and token-blind: load balancers probe it without credentials, and a stale token a
        // monitoring tool happens to send must not turn "healthy" into 401.
        router.get('/server/health', async (ctx) => {
          const report = await checkHealth.execute(null);
          respond.send(ctx, report, report.status === 'error' ? 503 : 200);
        });
        // Directus clients call it to learn that the server answers: text, unwrapped in every profile.
        router.get('/server/ping', (ctx) => {
          ctx.type = 'text/plain; charset=utf-8';
          ctx.body = 'pong';
        });
        router.get(
          '/server/info',
          authenticated(async (ctx, caller) => respond.send(ctx, await getServerInfo.execute(caller))),
        );
        router.get(
          '/server/specs/oas',
          authenticated(async (ctx, caller) => {
            const description = await describeApi.execute(caller);
            // Bare in every profile, as Directus answers it: OpenAPI tools read it, and they expect no envelope.
            ctx.status = 200;
            ctx.body = openApiDocument(description);
          }),
        );
        // /docs: the API explorer. Every file is a route of its own, so any other /docs path is a plain 404
        // and nothing outside the list can be reached (no directory listing, no path traversal).
        router.get('/docs', (ctx) => {
          ctx.type = 'text/html; charset=utf-8';
          ctx.body = EXPLORER_HTML;
        });
        router.get('/docs/explorer.js', (ctx) => {
          ctx.type = 'text/javascript; charset=utf-8';
          ctx.body = EXPLORER_SCRIPT;
        });
        for (const asset of explorerAssets()) {
          router.get(`/docs/${asset.name}`, async (ctx) => {
            ctx.type = asset.type;
            ctx.body = await asset.load();
          });
        }
      },
      openApi: ({ shapes }) => ({
        tags: ['server'],
        schemas: {
          Health: {
            type: 'object',
            required: ['status', 'checks'],
            properties: {
              status: {
                type: 'string',
                enum: ['ok', 'warn', 'error'],
                description: '`warn`: serving, but every database connection is busy (check status `busy`).',
              },
              checks: { type: 'object' },
            },
          },
        },
        paths: {
          '/server/health': {
            get: {
              operationId: 'health',
              summary: 'Whether the server can serve',
              tags: ['server'],
              security: NO_TOKEN,
              responses: {
                200: shapes.ok('Serving (`ok`, or `warn` when saturated).', schemaRef('Health')),
                // Errors are never enveloped, even in the directus profile.
                503: {
                  description: 'Not healthy, with the reason.',
                  content: { 'application/json': { schema: schemaRef('Health') } },
                },
              },
            },
          },
          '/server/ping': {
            get: {
              operationId: 'ping',
              summary: 'Whether the server answers at all',
              tags: ['server'],
              security: NO_TOKEN,
              responses: {
                200: {
                  description: 'Always `pong`, as text in every profile.',
                  content: { 'text/plain': { schema: { type: 'string', const: 'pong' } } },
                },
              },
            },
          },
        },
      }),
    };
  });
});
