import type { Router } from '@koa/router';
import type { HttpState } from '../http-state.ts';
import { type DocumentSettings, openApiDocument } from '../openapi/openapi-document.ts';
import type { RouteKit } from './route-kit.ts';

export function registerServerRoutes(
  router: Router<HttpState>,
  { handlers, authenticated, respond }: RouteKit,
  documentSettings: DocumentSettings,
): void {
  // Public and token-blind: load balancers probe it without credentials, and a stale token a
  // monitoring tool happens to send must not turn "healthy" into 401.
  router.get('/server/health', async (ctx) => {
    const report = await handlers.checkHealth.execute(null);
    respond.send(ctx, report, report.status === 'ok' ? 200 : 503);
  });
  router.get(
    '/server/info',
    authenticated(async (ctx, caller) => respond.send(ctx, await handlers.getServerInfo.execute(caller))),
  );
  router.get(
    '/server/specs/oas',
    authenticated(async (ctx, caller) => {
      const description = await handlers.describeApi.execute(caller);
      // Bare in every profile, as Directus answers it: OpenAPI tools read it, and they expect no envelope.
      ctx.status = 200;
      ctx.body = openApiDocument(description, documentSettings);
    }),
  );
}
