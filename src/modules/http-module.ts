import { ContainerModule } from 'inversify';
import type { Logger } from 'pino';
import type { AppConfig } from '../adapters/config/config-schema.ts';
import { CallerConcurrencyLimit } from '../adapters/http/caller-concurrency-limit.ts';
import { createHttpApp, type HttpApp } from '../adapters/http/create-http-app.ts';
import type { HttpRoutes } from '../adapters/http/http-routes.ts';
import type { HttpSettings } from '../adapters/http/http-settings.ts';
import { ResolveAccountabilityHandler } from '../application/auth/resolve-accountability.ts';
import type { Metrics } from '../application/ports/metrics.ts';
import type { Readiness } from '../application/server/readiness.ts';
import { TYPES } from './service-identifiers.ts';

/** The HTTP app: every area module's routes, behind the adapter's middleware, configured from AppConfig. */
export const httpModule = new ContainerModule((options) => {
  // One share per caller for every door that runs their database work: the routes and the WebSocket.
  options
    .bind<CallerConcurrencyLimit>(TYPES.CallerConcurrencyLimit)
    .toDynamicValue(
      (context) => new CallerConcurrencyLimit(httpSettings(context.get<AppConfig>(TYPES.Config)).perCaller),
    )
    .inSingletonScope();
  options
    .bind<HttpApp>(TYPES.HttpApp)
    .toDynamicValue((context) =>
      createHttpApp({
        routes: context.getAll<HttpRoutes>(TYPES.HttpRoutes),
        resolveCaller: context.get(ResolveAccountabilityHandler),
        readiness: context.get<Readiness>(TYPES.Readiness),
        logger: context.get<Logger>(TYPES.Logger),
        metrics: context.get<Metrics>(TYPES.Metrics),
        settings: httpSettings(context.get<AppConfig>(TYPES.Config)),
        callerLimit: context.get<CallerConcurrencyLimit>(TYPES.CallerConcurrencyLimit),
      }),
    )
    .inSingletonScope();
});

function httpSettings(config: AppConfig): HttpSettings {
  return {
    profile: config.http.profile,
    accessTokenTtlMs: config.auth.accessTokenTTL,
    bodyLimit: config.http.bodyLimit,
    allowQueryToken: config.auth.allowQueryToken,
    maxQueryLength: config.http.maxQueryLength,
    trustProxy: config.http.trustProxy,
    cors: {
      enabled: config.http.cors.enabled,
      origins: config.http.cors.origins,
      credentials: config.http.cors.credentials,
      maxAgeMs: config.http.cors.maxAge,
    },
    perCaller: {
      concurrency: config.limits.perCaller.concurrency,
      burst: Math.min(
        config.limits.perCaller.burst,
        config.database.poolSize - config.limits.perCaller.concurrency,
      ),
      quickMs: config.limits.perCaller.quick,
      queue: config.limits.perCaller.queue,
      queueTimeoutMs: config.limits.perCaller.queueTimeout,
    },
  };
}
