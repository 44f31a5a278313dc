import { ContainerModule } from 'inversify';
import { z } from 'zod';
import type { AppConfig } from '../adapters/config/config-schema.ts';
import type { HttpRoutes } from '../adapters/http/http-routes.ts';
import { setJsonBody } from '../adapters/http/json-answer.ts';
import { healthAnswer, serverInfoAnswer } from '../adapters/http/openapi/answer-schemas.ts';
import { explorerAssets } from '../adapters/http/openapi/explorer-assets.ts';
import { EXPLORER_HTML, EXPLORER_SCRIPT } from '../adapters/http/openapi/explorer-page.ts';
import { SILENT_ITEM_EVENT_FEED } from '../adapters/persistence/silent-item-event-feed.ts';
import { ReadRules } from '../application/items/read-rules.ts';
import { WriteRules } from '../application/items/write-rules.ts';
import type { ItemEventFeed } from '../application/ports/item-events.ts';
import { CheckHealthHandler } from '../application/server/check-health.ts';
import { DescribeApiHandler } from '../application/server/describe-api.ts';
import { GetServerInfoHandler } from '../application/server/get-server-info.ts';
import { LICENSE, VERSION } from '../version.ts';
import { factoryBinder } from './factory-binder.ts';
import { TYPES } from './service-identifiers.ts';

const pong = z.literal('pong');
const document = z.record(z.string(), z.unknown()).describe('An OpenAPI 3.1 document.');

/** /server/*: health, information and the OpenAPI document; and /docs, the explorer that reads it. */
export const serverModule = new ContainerModule((options) => {
  const bind = factoryBinder(options);
  bind(
    CheckHealthHandler,
    (get) => new CheckHealthHandler(get(TYPES.DatabaseHealth), get(TYPES.Readiness), get(TYPES.ChangeFeed)),
  );
  bind(
    GetServerInfoHandler,
    (get) => new GetServerInfoHandler(VERSION, get(TYPES.StartedAt), get(TYPES.Clock)),
  );
  bind(
    DescribeApiHandler,
    (get) =>
      new DescribeApiHandler(get(TYPES.SchemaCatalog), get(ReadRules), get(WriteRules), get(TYPES.Clock), {
        version: VERSION,
        license: LICENSE,
        limits: get(TYPES.QueryLimits),
        batchMax: get<AppConfig>(TYPES.Config).query.batchMax,
        // Off by configuration, or a backend without a change log: either way no change reaches a subscriber.
        realtime: get<ItemEventFeed>(TYPES.ItemEventFeed) !== SILENT_ITEM_EVENT_FEED,
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
            setJsonBody(ctx, openApiDocument(description, ctx.host ? `${ctx.protocol}://${ctx.host}` : '/'));
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
      api: () => {
        const server = { tag: 'server', method: 'get' } as const;
        const probe = { ...server, audience: 'anyone', tokenBlind: true } as const;
        return {
          tags: [
            { name: 'server', description: 'Whether the server serves, what it is, and this document.' },
          ],
          schemas: { Health: healthAnswer },
          operations: [
            {
              ...probe,
              path: '/server/health',
              operationId: 'health',
              summary: 'Whether the server can serve',
              answers: [
                { status: 200, description: 'Serving (`ok`, or `warn` when saturated).', body: healthAnswer },
                // Errors are never enveloped, even in the directus profile.
                {
                  status: 503,
                  description: 'Not healthy, with the reason.',
                  body: healthAnswer,
                  form: 'bare',
                },
              ],
              errors: [400],
            },
            {
              ...probe,
              path: '/server/ping',
              operationId: 'ping',
              summary: 'Whether the server answers at all',
              answers: [
                {
                  status: 200,
                  description: 'Always `pong`, as text in every profile.',
                  body: pong,
                  form: 'text',
                },
              ],
              errors: [400],
            },
            {
              ...server,
              path: '/server/info',
              audience: 'admin',
              operationId: 'serverInfo',
              summary: 'The version and uptime of the server',
              answers: [{ status: 200, description: 'About the server.', body: serverInfoAnswer }],
              errors: [401, 403],
            },
            {
              ...server,
              path: '/server/specs/oas',
              audience: 'anyone',
              operationId: 'openApi',
              summary: 'This document',
              description: 'The OpenAPI 3.1 document of what the caller may do; as is in every profile.',
              answers: [
                {
                  status: 200,
                  description: 'The document.',
                  body: document,
                  form: 'bare',
                },
              ],
              errors: [400, 401],
            },
          ],
        };
      },
    };
  });
});
