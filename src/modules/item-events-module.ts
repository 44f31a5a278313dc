import { ContainerModule } from 'inversify';
import type { AppConfig } from '../adapters/config/config-schema.ts';
import type { HttpRoutes } from '../adapters/http/http-routes.ts';
import { itemEventsApi } from '../adapters/http/openapi/item-event-operations.ts';
import { itemEventsRoute } from '../adapters/http/sse/item-events-route.ts';
import type { SseSettings } from '../adapters/http/sse/sse-settings.ts';
import { ResolveAccountabilityHandler } from '../application/auth/resolve-accountability.ts';
import type { ItemSubscriptions } from '../application/realtime/item-subscriptions.ts';
import { TYPES } from './service-identifiers.ts';

/**
 * GET /items/:collection/events: the items' changes as Server-Sent Events, on the realtime subscriptions.
 * Loaded before the items module, whose `/items/:collection/:key` would otherwise read "events" as a key.
 */
export const itemEventsModule = new ContainerModule((options) => {
  options
    .bind<HttpRoutes>(TYPES.HttpRoutes)
    .toDynamicValue((context) => {
      const subscriptions = context.get<ItemSubscriptions>(TYPES.ItemSubscriptions);
      const settings = sseSettings(context.get<AppConfig>(TYPES.Config));
      const resolveCaller = context.get(ResolveAccountabilityHandler);
      return {
        register(router, { authenticated }) {
          router.get(
            '/items/:collection/events',
            itemEventsRoute({ subscriptions, resolveCaller, authenticated, settings }),
          );
        },
        api: itemEventsApi,
      };
    })
    .inSingletonScope();
});

function sseSettings(config: AppConfig): SseSettings {
  return {
    heartbeatMs: config.realtime.sseHeartbeat,
    retryMs: config.realtime.sseRetry,
    sendBufferBytes: config.realtime.sendBufferBytes,
    writeIntervalMs: config.realtime.writeInterval,
    streamsPerUser: config.realtime.sseStreamsPerUser,
    streamsPerAddress: config.realtime.sseStreamsPerAddress,
    allowQueryToken: config.auth.allowQueryToken,
  };
}
