import { once } from 'node:events';
import { type ClientRequest, createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocket } from 'ws';
import { attachWebSocket } from '../../src/adapters/http/websocket/directus-websocket.ts';
import { InProcessItemJson } from '../../src/adapters/realtime/in-process-item-json.ts';
import type { Metrics } from '../../src/application/ports/metrics.ts';
import type { ItemSubscriptions } from '../../src/application/realtime/item-subscriptions.ts';
import { RealtimeHub } from '../../src/application/realtime/realtime-hub.ts';
import type { Accountability } from '../../src/domain/accountability.ts';
import { DomainError } from '../../src/domain/errors.ts';
import { CALLER, LIMITS, readFixture } from '../application/items/read-fixture.ts';
import { FakeItemEventFeed, ManualTicker } from './fakes/fake-item-event-feed.ts';

/**
 * /websocket on a bare HTTP server over the read fixture's parcels (clerks may read them all) and a fake
 * event feed the test emits into; tokens map to the fixture's callers (or to the error resolving them throws), no token to `publicCaller` (none: the
 * public caller cannot be resolved), each after `authDelayMs`. `next` waits for a message. `refused` is the
 * status and body (and `Retry-After`, when sent) of an upgrade the server answers without a socket.
 */
const LIMITS_WS = {
  connectionsPerUser: 2,
  connectionsPerAddress: 10,
  subscriptionsPerConnection: 2,
  messageMaxBytes: 4096,
  sendBufferMaxBytes: 1024 * 1024,
  authTimeoutMs: 60_000,
  heartbeatMs: 0,
};

export async function websocketFixture({
  publicCaller = null,
  authDelayMs = 0,
  allowQueryToken = true,
  trustProxy = false,
  subscribeFails,
  metrics,
  ...limits
}: Partial<typeof LIMITS_WS> & {
  publicCaller?: Accountability | null;
  authDelayMs?: number;
  allowQueryToken?: boolean;
  trustProxy?: boolean;
  /** What every subscribe throws instead of subscribing (a database failure). */
  subscribeFails?: Error;
  metrics?: Metrics;
} = {}) {
  const fixture = await readFixture();
  await fixture.grant();
  const feed = new FakeItemEventFeed();
  const ticker = new ManualTicker();
  const hub = new RealtimeHub(
    fixture.persistence.schema,
    fixture.rules,
    fixture.listItems,
    feed,
    null,
    new InProcessItemJson(),
    fixture.clock,
    LIMITS,
    ticker,
  );
  /** A token's caller, or the error resolving it throws (a suspended user, an expired token). */
  const tokens = new Map<string, Accountability | DomainError>([
    ['ada-token', CALLER.ada],
    ['carol-token', CALLER.carol],
  ]);
  const server: Server = createServer((_request, response) => response.end());
  const subscriptions: ItemSubscriptions = subscribeFails
    ? {
        subscribe: () => Promise.reject(subscribeFails),
      }
    : hub;
  const detach = attachWebSocket(server, {
    subscriptions,
    ...(metrics ? { metrics } : {}),
    authenticate: async (token) => {
      // A credential resolved as slowly as a database lookup can be (a static token, a cold cache).
      if (authDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, authDelayMs));
      const caller = token === null ? publicCaller : (tokens.get(token) ?? null);
      if (caller instanceof DomainError) throw caller;
      return caller;
    },
    limits: { ...LIMITS_WS, ...limits },
    allowQueryToken,
    trustProxy,
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const messages = new Map<WebSocket, unknown[]>();
  async function connect(query = '', headers: Record<string, string> = {}) {
    const socket = new WebSocket(`ws://127.0.0.1:${port}/websocket${query}`, { headers });
    const received: unknown[] = [];
    messages.set(socket, received);
    socket.on('message', (data) => received.push(JSON.parse(String(data))));
    await once(socket, 'open');
    return socket;
  }
  async function refused(query: string, headers: Record<string, string> = {}) {
    const socket = new WebSocket(`ws://127.0.0.1:${port}/websocket${query}`, { headers });
    const [request, response] = (await once(socket, 'unexpected-response')) as [
      ClientRequest,
      IncomingMessage,
    ];
    let body = '';
    for await (const chunk of response) body += String(chunk);
    request.destroy();
    const retryAfter = response.headers['retry-after'];
    return {
      status: response.statusCode,
      body: JSON.parse(body) as unknown,
      ...(retryAfter && { retryAfter }),
    };
  }
  /** The next message that satisfies `test`, waiting for it. */
  async function next(socket: WebSocket, test: (message: Record<string, unknown>) => boolean) {
    const received = messages.get(socket) ?? [];
    for (;;) {
      const index = received.findIndex((message) => test(message as Record<string, unknown>));
      if (index >= 0) return received.splice(index, 1)[0] as Record<string, unknown>;
      await once(socket, 'message');
    }
  }
  let pings = 0;
  /**
   * What `socket` received and `next` had not taken, once the hub has delivered every change fed to it so far:
   * taken when the answer to a ping sent after them arrives (the socket's messages come in order).
   */
  async function delivered(socket: WebSocket) {
    await hub.settled();
    const uid = `delivered ${++pings}`;
    socket.send(JSON.stringify({ type: 'ping', uid }));
    await next(socket, (message) => message.uid === uid);
    return (messages.get(socket) ?? []).splice(0) as Record<string, unknown>[];
  }
  return {
    ...fixture,
    /** What `socket` received and `next` has not taken yet. */
    received: (socket: WebSocket) => (messages.get(socket) ?? []) as Record<string, unknown>[],
    feed,
    ticker,
    hub,
    tokens,
    connect,
    refused,
    next,
    delivered,
    url: `http://127.0.0.1:${port}`,
    async close() {
      detach();
      hub.shutdown();
      server.closeAllConnections();
      server.close();
    },
  };
}
