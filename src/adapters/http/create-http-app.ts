import { Router } from '@koa/router';
import Koa from 'koa';
import type { Logger } from 'pino';
import type { ResolveAccountabilityHandler } from '../../application/auth/resolve-accountability.ts';
import { type Metrics, NO_METRICS } from '../../application/ports/metrics.ts';
import type { Readiness } from '../../application/server/readiness.ts';
import { notFound } from '../../domain/errors.ts';
import { admission } from './admission.ts';
import { authenticatedRoutes } from './authenticated.ts';
import { CallerConcurrencyLimit } from './caller-concurrency-limit.ts';
import { isClientGone } from './client-gone.ts';
import { corsPolicy } from './cors.ts';
import { methodNotAllowed } from './http-problem.ts';
import type { HttpRoutes } from './http-routes.ts';
import type { HttpSettings } from './http-settings.ts';
import type { HttpState } from './http-state.ts';
import { jsonBodyReader } from './json-body.ts';
import { matchBySegment } from './match-by-segment.ts';
import { type ApiPartOf, openApiDocument } from './openapi/openapi-document.ts';
import { requestFrame } from './request-frame.ts';
import { responder } from './respond.ts';
import type { RouteKit } from './route-kit.ts';
import { allowOf, onlyRoutesThatAnswer, routesThatAnswer } from './routes-that-answer.ts';
import { canonicalUuid, UUID_PATTERN } from './uuid.ts';
import { wellFormedParameter } from './well-formed-input.ts';

/**
 * What an `:id` names, by its route's first segment, in the words its handlers use for a well-formed id that
 * does not exist, so the two 404s read alike; a file, read as the item it is, is an item's (the default).
 */
const RESOURCE_OF_ID: ReadonlyMap<string, string> = new Map([
  ['users', 'User'],
  ['roles', 'Role'],
  ['permissions', 'Permission'],
]);

/** A Koa application; serve it with `http.createServer(app.callback())`. */
export type HttpApp = Koa<HttpState>;

/** All the HTTP adapter needs; the composition root builds it, tests may build it by hand. */
export type HttpAppDependencies = {
  /** Every area's routes, registered (and documented) in this order. */
  routes: ReadonlyArray<HttpRoutes>;
  /** Turns the presented token into the caller, for the routes that act for one. */
  resolveCaller: ResolveAccountabilityHandler;
  /** Until it says ready, every request but the health check is answered 503. */
  readiness: Readiness;
  settings: HttpSettings;
  logger: Logger;
  /** Requests by route template and status, database failures by kind; none measured by default. */
  metrics?: Metrics;
  /** Each caller's share of the work served at once, shared with the WebSocket; one of its own by default. */
  callerLimit?: CallerConcurrencyLimit;
};

export function createHttpApp({
  routes,
  resolveCaller,
  settings,
  readiness,
  logger,
  metrics = NO_METRICS,
  callerLimit = new CallerConcurrencyLimit(settings.perCaller),
}: HttpAppDependencies): HttpApp {
  // maxIpsCount 1: the address is the entry our proxy appended, not the leftmost one a client can forge.
  const app = new Koa<HttpState>({ proxy: settings.trustProxy, maxIpsCount: 1 });
  // Every failure is answered (and, when unexpected, logged) by the request frame; what still reaches
  // Koa's own handler (a socket error after the answer was sent) goes to the same log, not stderr. A
  // client that leaves mid-answer (a cancelled download) is no fault of the server: debug, not error.
  app.on('error', (error: unknown) => {
    if (isClientGone(error)) logger.debug({ err: error }, 'client went away before the answer was complete');
    else logger.error({ err: error }, 'unhandled http error');
  });

  const parts = routes.flatMap((area): ApiPartOf[] => (area.api ? [area.api] : []));
  const kit: RouteKit = {
    readBody: jsonBodyReader(settings.bodyLimit),
    authenticated: authenticatedRoutes(resolveCaller, settings.allowQueryToken, callerLimit),
    respond: responder(settings),
    openApiDocument: (description, server) => openApiDocument(description, settings, parts, server),
  };
  // Fixed segments match exactly, as the parameters beside them do (a collection, a text key): the router's
  // default would take `/roles/PUBLIC/preview` for the public role's preview rather than an id that is no
  // uuid (404), and `/items/t/EVENTS` for the event stream rather than the item whose key is "EVENTS".
  const router = new Router<HttpState>({ sensitive: true });
  for (const area of routes) area.register(router, kit);
  // After the routes, to cover every parameter they declare; the router runs a parameter's handlers in
  // the order given, so a NUL in `/roles/%00` is named before the id check below answers 404.
  const parameterNames = new Set(router.stack.flatMap((layer) => layer.paramNames.map((key) => key.name)));
  for (const name of parameterNames) router.param(name, wellFormedParameter(name));
  // An id that cannot exist is answered like one that does not: 404, without calling a handler. One that
  // can is handed on in its canonical form, lower case, as PostgreSQL writes a uuid: the in-memory store
  // and the caches keyed by id would otherwise know it under a second name (docs/api.md §1).
  // One that is a word of a route of its own (`DELETE /users/me`) is that route's wrong method: 405.
  router.param('id', (id, ctx, next) => {
    if (!UUID_PATTERN.test(id)) {
      const answering = routesThatAnswer(ctx);
      throw answering.length > 0
        ? methodNotAllowed(ctx.method, allowOf(answering))
        : notFound(RESOURCE_OF_ID.get(ctx.path.split('/')[1] ?? ''));
    }
    ctx.params.id = canonicalUuid(id);
    return next();
  });
  matchBySegment(router);

  app.use(
    requestFrame({
      logger,
      metrics,
      cors: corsPolicy(settings.cors),
      admission: admission(settings.maxQueryLength, readiness),
    }),
  );
  app.use(router.routes());
  app.use(onlyRoutesThatAnswer);
  app.use(router.allowedMethods());
  return app;
}
