import {
  auth,
  authentication,
  createDirectus,
  createItem,
  type Query,
  readItems,
  realtime,
  rest,
  staticToken,
  updateItem,
  type WebSocketAuthModes,
} from '@directus/sdk';
import * as assert from 'uvu/assert';
import { backends } from '../support/databases.ts';
import { suitePerBackend } from '../support/suite-per-backend.ts';
import { ADMIN_STATIC_TOKEN, type Cargo, ID, type Schema } from './cargos-scenario.ts';
import { type SdkScenario, startSdkScenario, stopSdkScenario } from './sdk-scenario.ts';
import { SDK_WEB_SOCKET } from './sdk-web-socket.ts';

type Message = {
  type: string;
  event?: string;
  data?: unknown;
  uid?: string;
  status?: string;
  error?: { code: string };
};

type Context = SdkScenario;

/** Node 20 has no global WebSocket: the SDK is given `ws`'s, as README "Directus profile" says (sdk-web-socket.ts). */
const globals = { WebSocket: SDK_WEB_SOCKET };

/** A realtime client in `authMode`, holding the operator's session, the admin's static token or nothing. */
async function realtimeClient(
  { scenario }: Context,
  authMode: WebSocketAuthModes,
  as: 'operator' | 'admin' | 'anonymous',
) {
  const base = createDirectus<Schema>(scenario.app.url, { globals });
  const options = { authMode, reconnect: false as const };
  if (as === 'admin') return base.with(staticToken(ADMIN_STATIC_TOKEN)).with(realtime(options));
  if (as === 'anonymous') return base.with(realtime(options));
  const client = base.with(authentication('json')).with(rest()).with(realtime(options));
  await client.login({ email: scenario.operator.email, password: scenario.operator.password });
  client.stopRefreshing();
  return client;
}

/** The subscription's first message, or the subscribe error the SDK's iterator throws. */
async function firstOf(subscription: AsyncGenerator<unknown>): Promise<Message> {
  try {
    const { value } = await subscription.next();
    return value as Message;
  } catch (error) {
    return error as Message;
  }
}

/**
 * `@directus/sdk`'s `realtime()` against the composed app's `/websocket` (docs/api.md §12), on every backend:
 * each auth mode, subscriptions with a query and an `event`, the subscribe errors the SDK throws, ping.
 */
for (const [target, live] of suitePerBackend<Context>(
  backends(),
  (backend) => `@directus/sdk realtime() on the composed app on ${backend}`,
)) {
  live.before(async (context) => {
    Object.assign(context, await startSdkScenario(target));
  });
  live.after((context) => stopSdkScenario(context, target));

  live('connect() in each auth mode subscribes as its caller', async (context) => {
    const cases: Array<{
      mode: WebSocketAuthModes;
      as: 'operator' | 'admin' | 'anonymous';
      expect: unknown;
    }> = [
      // handshake: an auth message with the session's access token once the socket opens.
      { mode: 'handshake', as: 'operator', expect: [ID.fish, ID.bananas, ID.unmeasured] },
      // strict: the token in the URL.
      { mode: 'strict', as: 'admin', expect: [ID.fish, ID.bananas, ID.archived, ID.unmeasured] },
      { mode: 'strict', as: 'operator', expect: [ID.fish, ID.bananas, ID.unmeasured] },
      // public: no token; the public role may not read cargos.
      { mode: 'public', as: 'anonymous', expect: 'UNAUTHENTICATED' },
    ];
    for (const { mode, as, expect } of cases) {
      const client = await realtimeClient(context, mode, as);
      try {
        await client.connect();
        const { subscription } = await client.subscribe('cargos', {
          query: { fields: ['id'], sort: ['id'] },
        });
        const first = await firstOf(subscription);
        const got =
          first.event === 'init' ? (first.data as Cargo[]).map((cargo) => cargo.id) : first.error?.code;
        assert.equal(got, expect, `${mode} as ${as}`);
      } finally {
        client.disconnect();
      }
    }
  });

  live(
    'a bad token fails connect() in handshake mode and closes the socket in strict mode',
    async ({ scenario }) => {
      for (const authMode of ['handshake', 'strict'] as const) {
        const client = createDirectus<Schema>(scenario.app.url, { globals })
          .with(staticToken('not-a-token-of-anyone-0123456789abcdef'))
          .with(realtime({ authMode, reconnect: false }));
        let closedWith: number | undefined;
        client.onWebSocket('close', (event: { code: number }) => {
          closedWith = event.code;
        });
        try {
          const failed = await client.connect().then(
            () => false,
            () => true,
          );
          if (authMode === 'handshake') assert.ok(failed, 'handshake: connect() rejects');
          else {
            while (closedWith === undefined) await new Promise((resolve) => setTimeout(resolve, 10));
            assert.is(closedWith, 4003, 'strict: the server closes with 4003');
          }
        } finally {
          client.disconnect();
        }
      }
    },
  );

  live('subscribe with a query: the init is the page readItems answers', async (context) => {
    const client = await realtimeClient(context, 'handshake', 'operator');
    const queries: Array<Query<Schema, Cargo>> = [
      { fields: ['id', 'temperature'], filter: { temperature: { _lt: 20 } }, sort: ['-temperature'] },
      { fields: ['description'], sort: ['date_created'], limit: 2, offset: 1 },
      { search: 'fish', fields: ['id'] },
    ];
    try {
      await client.connect();
      for (const query of queries) {
        const { subscription, unsubscribe } = await client.subscribe('cargos', { query } as never);
        const init = await firstOf(subscription);
        assert.is(init.event, 'init', JSON.stringify(init));
        assert.equal(
          init.data,
          await context.operator.request(readItems('cargos', query)),
          JSON.stringify(query),
        );
        // As against Directus: an iterator waiting when unsubscribe() is called yields the server's
        // confirmation (a `subscription` message of its uid) and then ends. Waiting for it also keeps it out
        // of the network read that brings the next subscription's init: the SDK's iterator hears one message
        // per wake-up, and would miss that init.
        assert.type(init.uid, 'string');
        const last = subscription.next();
        unsubscribe();
        assert.equal((await last).value, { type: 'subscription', event: 'unsubscribe', uid: init.uid });
        assert.ok((await subscription.next()).done, 'the iterator ends after the confirmation');
      }
    } finally {
      client.disconnect();
    }
  });

  live('a refused subscription is the error the SDK throws: FORBIDDEN, INVALID_QUERY', async (context) => {
    const client = await realtimeClient(context, 'handshake', 'operator');
    const cases: Array<{ collection: string; query: Record<string, unknown>; code: string }> = [
      { collection: 'cargos', query: { fields: ['id', 'is_deleted'] }, code: 'FORBIDDEN' },
      { collection: 'cargos', query: { filter: { is_deleted: { _eq: true } } }, code: 'FORBIDDEN' },
      { collection: 'nothing', query: {}, code: 'FORBIDDEN' },
      { collection: 'cargos', query: { filter: { temperature: { _gt: 'warm' } } }, code: 'INVALID_QUERY' },
      { collection: 'cargos', query: { aggregate: { count: '*' } }, code: 'INVALID_QUERY' },
      { collection: 'cargos', query: { alias: { t: 'temperature' } }, code: 'INVALID_QUERY' },
    ];
    try {
      await client.connect();
      for (const { collection, query, code } of cases) {
        const { subscription } = await client.subscribe(collection as 'cargos', { query });
        const refusal = await firstOf(subscription);
        assert.equal(
          [refusal.type, refusal.status, refusal.error?.code],
          ['subscribe', 'error', code],
          `${collection} ${JSON.stringify(query)}`,
        );
      }
    } finally {
      client.disconnect();
    }
  });

  live('REST writes arrive as the SDK expects; `event` narrows them to one kind', async (context) => {
    // Two connections: the SDK's iterator hears only the messages that arrive while it waits, and takes one
    // per wake-up, so two subscriptions of one connection would drop each other's messages (not the server).
    const client = await realtimeClient(context, 'handshake', 'operator');
    const narrowed = await realtimeClient(context, 'strict', 'admin');
    try {
      await client.connect();
      await narrowed.connect();
      const all = await client.subscribe('cargos', { query: { fields: ['id', 'temperature'] } });
      assert.is((await firstOf(all.subscription)).event, 'init');
      const updates = await narrowed.subscribe('cargos', { event: 'update', query: { fields: ['id'] } });
      assert.is((await firstOf(updates.subscription)).event, 'init');

      // Each write is made while the iterators that expect its event wait: a create, which `all` hears and
      // `updates` must not, then an update both hear (`updates`' next message is that update).
      const created = firstOf(all.subscription);
      const updated = firstOf(updates.subscription);
      const cod = await context.admin.request(createItem('cargos', { description: 'Cod', temperature: -2 }));
      const create = await created;
      assert.equal([create.event, create.data], ['create', [{ id: cod.id, temperature: -2 }]]);
      const updatedForAll = firstOf(all.subscription);
      await context.admin.request(updateItem('cargos', cod.id, { temperature: -3 }));
      assert.equal((await updatedForAll).data, [{ id: cod.id, temperature: -3 }]);
      assert.equal([(await updated).event, (await updated).data], ['update', [{ id: cod.id }]]);
    } finally {
      client.disconnect();
      narrowed.disconnect();
    }
  });

  live('a burst of changes reaches both the iterator and onWebSocket, every one', async (context) => {
    const client = await realtimeClient(context, 'strict', 'admin');
    try {
      await client.connect();
      const { subscription } = await client.subscribe('cargos', { query: { fields: ['id'] } });
      const init = await firstOf(subscription);
      assert.is(init.event, 'init');
      const heard: Message[] = [];
      client.onWebSocket('message', (message: Message) => {
        if (message.type === 'subscription' && message.uid === init.uid) heard.push(message);
      });
      const yielded: Message[] = [];
      const iterating = (async () => {
        while (yielded.length < 5) yielded.push((await subscription.next()).value as Message);
      })();
      // Concurrent writes: their events reach the client together, several in one network read, which the
      // SDK hears one by one only from a WebSocket that dispatches one message per tick (sdk-web-socket.ts).
      const written = await Promise.all(
        [1, 2, 3, 4, 5].map((n) =>
          context.admin.request(createItem('cargos', { description: `Burst ${n}`, temperature: n })),
        ),
      );
      const deadline = Date.now() + 5_000;
      while ((heard.length < 5 || yielded.length < 5) && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 10));
      const ids = (messages: Message[]) =>
        messages.flatMap((message) => (message.data as Array<{ id: string }>).map((item) => item.id)).sort();
      const expected = written.map((item) => item.id).sort();
      assert.equal(ids(heard), expected, 'onWebSocket');
      assert.equal(ids(yielded), expected, 'the subscription iterator');
      assert.ok([...heard, ...yielded].every((message) => message.event === 'create'));
      await iterating;
    } finally {
      client.disconnect();
    }
  });

  live('ping is answered pong, with its uid', async (context) => {
    const client = await realtimeClient(context, 'strict', 'admin');
    try {
      await client.connect();
      const pongs: Message[] = [];
      client.onWebSocket('message', (message: Message) => {
        if (message.type === 'pong') pongs.push(message);
      });
      client.sendMessage({ type: 'ping', uid: 'p1' });
      const deadline = Date.now() + 5_000;
      while (pongs.length === 0 && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 10));
      assert.equal(pongs, [{ type: 'pong', uid: 'p1' }]);
    } finally {
      client.disconnect();
    }
  });

  live(
    'the auth command with a new access token; Directus’s items messages and refresh tokens are refused',
    async (context) => {
      const client = await realtimeClient(context, 'public', 'anonymous');
      try {
        // The socket itself: the SDK keeps auth errors to itself, and the test must see them.
        const socket = await client.connect();
        const answers: Message[] = [];
        socket.addEventListener('message', (event: MessageEvent) =>
          answers.push(JSON.parse(String(event.data))),
        );
        const answered = async (uid: string) => {
          const deadline = Date.now() + 5_000;
          for (;;) {
            const found = answers.find((message) => message.uid === uid);
            if (found) return found;
            assert.ok(Date.now() < deadline, `no answer to ${uid}`);
            await new Promise((resolve) => setTimeout(resolve, 10));
          }
        };
        const cases: Array<[Record<string, unknown>, unknown]> = [
          [
            { type: 'items', collection: 'cargos', action: 'read', uid: 'crud' },
            ['items', 'error', 'INVALID_PAYLOAD'],
          ],
          [
            { type: 'auth', refresh_token: 'a-refresh-token', uid: 'refresh' },
            ['auth', 'error', 'INVALID_PAYLOAD'],
          ],
          [
            { ...(JSON.parse(auth({ access_token: ADMIN_STATIC_TOKEN })) as object), uid: 'token' },
            ['auth', 'ok', undefined],
          ],
        ];
        for (const [message, expected] of cases) {
          client.sendMessage(message);
          const answer = await answered(String(message.uid));
          assert.equal([answer.type, answer.status, answer.error?.code], expected, JSON.stringify(message));
        }
        // The connection now acts as the admin.
        const { subscription } = await client.subscribe('cargos', { query: { fields: ['id'] } });
        assert.equal(
          (await firstOf(subscription)).data,
          await context.admin.request(readItems('cargos', { fields: ['id'] })),
        );
      } finally {
        client.disconnect();
      }
    },
  );

  live.run();
}
