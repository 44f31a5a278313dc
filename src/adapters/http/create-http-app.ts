import { Router } from '@koa/router';
import Koa from 'koa';
import { notFound } from '../../domain/errors.ts';
import { accessLog } from './access-log.ts';
import { authenticatedRoutes } from './authenticated.ts';
import { corsPolicy } from './cors.ts';
import { errorHandler } from './error-handler.ts';
import type { HttpAppDependencies } from './http-app-dependencies.ts';
import type { HttpState } from './http-state.ts';
import { jsonBodyReader } from './json-body.ts';
import { queryLengthLimit } from './query-length-limit.ts';
import { readinessGate } from './readiness-gate.ts';
import { requestId } from './request-id.ts';
import { responder } from './respond.ts';
import { routeFallback } from './route-fallback.ts';
import { registerAuthRoutes } from './routes/auth-routes.ts';
import { registerCollectionRoutes } from './routes/collection-routes.ts';
import { registerDocsRoutes } from './routes/docs-routes.ts';
import { registerItemRoutes } from './routes/item-routes.ts';
import { registerPermissionRoutes } from './routes/permission-routes.ts';
import { registerRoleRoutes } from './routes/role-routes.ts';
import type { RouteKit } from './routes/route-kit.ts';
import { registerServerRoutes } from './routes/server-routes.ts';
import { registerUserRoutes } from './routes/user-routes.ts';
import { securityHeaders } from './security-headers.ts';
import { UUID_PATTERN } from './uuid.ts';

/** A Koa application; serve it with `http.createServer(app.callback())`. */
export type HttpApp = Koa<HttpState>;

export function createHttpApp({ handlers, settings, readiness, logger }: HttpAppDependencies): HttpApp {
  // maxIpsCount 1: the address is the entry our proxy appended, not the leftmost one a client can forge.
  const app = new Koa<HttpState>({ proxy: settings.trustProxy, maxIpsCount: 1 });
  // Every failure is answered (and, when unexpected, logged) by errorHandler; what still reaches
  // Koa's own handler (a socket error after the answer was sent) goes to the same log, not stderr.
  app.on('error', (error: unknown) => logger.error({ err: error }, 'unhandled http error'));

  const kit: RouteKit = {
    handlers,
    readBody: jsonBodyReader(settings.bodyLimit),
    authenticated: authenticatedRoutes(handlers.resolveAccountability, settings.allowQueryToken),
    respond: responder(settings),
  };
  const router = new Router<HttpState>();
  // An id that cannot exist is answered like one that does not: 404, without calling a handler.
  router.param('id', (id, _ctx, next) => {
    if (!UUID_PATTERN.test(id)) throw notFound();
    return next();
  });
  registerAuthRoutes(router, kit);
  registerUserRoutes(router, kit);
  registerRoleRoutes(router, kit);
  registerPermissionRoutes(router, kit);
  registerCollectionRoutes(router, kit);
  registerItemRoutes(router, kit);
  registerServerRoutes(router, kit, settings);
  registerDocsRoutes(router);

  // Order matters: the request id first (everything logs it), the access log outside the error
  // handler (so it sees the final status), security and CORS headers before anything can fail.
  app.use(requestId);
  app.use(accessLog(logger));
  app.use(securityHeaders);
  const cors = corsPolicy(settings.cors);
  if (cors) app.use(cors);
  app.use(errorHandler(logger));
  app.use(queryLengthLimit(settings.maxQueryLength));
  app.use(readinessGate(readiness));
  app.use(routeFallback);
  app.use(router.routes());
  app.use(router.allowedMethods());
  return app;
}
