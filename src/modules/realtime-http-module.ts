import type { Server } from 'node:http';
import { ContainerModule } from 'inversify';
import type { AppConfig } from '../adapters/config/config-schema.ts';
import type { CallerConcurrencyLimit } from '../adapters/http/caller-concurrency-limit.ts';
import { attachWebSocket } from '../adapters/http/websocket/directus-websocket.ts';
import { InProcessItemJson } from '../adapters/realtime/in-process-item-json.ts';
import { ResolveAccountabilityHandler } from '../application/auth/resolve-accountability.ts';
import { ListItemsHandler } from '../application/items/list-items.ts';
import { ReadRules } from '../application/items/read-rules.ts';
import type { ItemEventFeed } from '../application/ports/item-events.ts';
import type { Metrics } from '../application/ports/metrics.ts';
import type { ItemSubscriptions } from '../application/realtime/item-subscriptions.ts';
import { RealtimeHub } from '../application/realtime/realtime-hub.ts';
import { factoryBinder } from './factory-binder.ts';
import { TYPES } from './service-identifiers.ts';

/** Attaches /websocket to the API's HTTP server; returns the shutdown that closes every socket with a reason. */
export type RealtimeAttach = (server: Server) => () => void;
export const REALTIME_ATTACH = Symbol.for('RealtimeAttach');

/** Realtime (docs/api.md §12): the subscription hub and the Directus WebSocket on the API's own server. */
export const realtimeHttpModule = new ContainerModule((options) => {
  const bind = factoryBinder(options);
  bind(
    RealtimeHub,
    (get) =>
      new RealtimeHub(
        get(TYPES.SchemaCatalog),
        get(ReadRules),
        get(ListItemsHandler),
        get<ItemEventFeed>(TYPES.ItemEventFeed),
        get(TYPES.ChangeFeed),
        new InProcessItemJson(),
        get(TYPES.Clock),
        get(TYPES.QueryLimits),
      ),
  );
  // One hub serves every transport: the WebSocket below and the event stream (SSE) of the items module.
  bind<ItemSubscriptions>(TYPES.ItemSubscriptions, (get) => get(RealtimeHub));
  bind<RealtimeAttach>(REALTIME_ATTACH, (get) => (server) => {
    const hub = get(RealtimeHub);
    const resolve = get(ResolveAccountabilityHandler);
    const { realtime, auth, http } = get<AppConfig>(TYPES.Config);
    const detach = attachWebSocket(server, {
      subscriptions: get<ItemSubscriptions>(TYPES.ItemSubscriptions),
      authenticate: (token) => resolve.execute(null, { token }),
      allowQueryToken: auth.allowQueryToken,
      trustProxy: http.trustProxy,
      metrics: get<Metrics>(TYPES.Metrics),
      callerLimit: get<CallerConcurrencyLimit>(TYPES.CallerConcurrencyLimit),
      writeIntervalMs: realtime.writeInterval,
      limits: {
        connectionsPerUser: realtime.wsConnectionsPerUser,
        connectionsPerAddress: realtime.wsConnectionsPerAddress,
        subscriptionsPerConnection: realtime.wsSubscriptionsPerConnection,
        messageMaxBytes: realtime.wsMessageMaxBytes,
        sendBufferMaxBytes: realtime.sendBufferBytes,
        authTimeoutMs: realtime.wsAuthTimeout,
        heartbeatMs: realtime.wsHeartbeat,
      },
    });
    return () => {
      detach();
      hub.shutdown();
    };
  });
});
