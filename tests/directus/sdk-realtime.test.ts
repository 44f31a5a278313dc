import { createDirectus, realtime, staticToken } from '@directus/sdk';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { WebSocket } from 'ws';
import { PARCEL_ROWS, PARCELS } from '../application/items/read-fixture.ts';
import { websocketFixture } from '../support/websocket-fixture.ts';
import { SDK_WEB_SOCKET } from './sdk-web-socket.ts';

type Message = { type: string; event?: string; data?: unknown; status?: string; error?: { code: string } };

const row = (id: number) => ({ ...PARCEL_ROWS.find((parcel) => parcel.id === id)! });

/** The unmodified SDK's realtime client, as its documentation builds one, on Node's `ws`. */
function sdkClient(url: string, token: string) {
  return createDirectus(url, { globals: { WebSocket: SDK_WEB_SOCKET } })
    .with(staticToken(token))
    .with(realtime({ reconnect: false }));
}

const sdk = suite('@directus/sdk realtime()');

sdk('subscribe: init with the rows, then create, update and delete made elsewhere', async () => {
  const f = await websocketFixture();
  const client = sdkClient(f.url, 'ada-token');
  try {
    await client.connect();
    const { subscription, unsubscribe } = await client.subscribe(PARCELS, {
      query: { fields: ['id', 'label'], sort: ['id'] },
    });
    const received: Message[] = [];
    for await (const message of subscription as AsyncIterable<Message>) {
      received.push(message);
      // One change at a time: the SDK's iterator takes one message per wake-up, so messages arriving in
      // the same network read would be skipped by the client (not lost by the server).
      if (message.event === 'init') f.feed.emit(PARCELS, 6, null, { ...row(1), id: 6, label: 'New' });
      if (message.event === 'create') {
        f.feed.emit(PARCELS, 6, { ...row(1), id: 6, label: 'New' }, { ...row(1), id: 6, label: 'Newer' });
      }
      if (message.event === 'update') f.feed.emit(PARCELS, 6, { ...row(1), id: 6, label: 'Newer' }, null);
      if (message.event === 'delete') break;
    }
    unsubscribe();
    assert.equal(
      received.map((message) => [message.event, message.data]),
      [
        ['init', PARCEL_ROWS.map(({ id, label }) => ({ id, label }))],
        ['create', [{ id: 6, label: 'New' }]],
        ['update', [{ id: 6, label: 'Newer' }]],
        ['delete', [6]],
      ],
    );
  } finally {
    client.disconnect();
    await f.close();
  }
});

sdk('a caller who may not read the collection gets the subscribe error, never a row', async () => {
  const f = await websocketFixture();
  const client = sdkClient(f.url, 'carol-token');
  try {
    await client.connect();
    const { subscription } = await client.subscribe(PARCELS, { query: { fields: ['id'] } });
    let error: Message | undefined;
    try {
      for await (const message of subscription as AsyncIterable<Message>)
        assert.unreachable(JSON.stringify(message));
    } catch (caught) {
      error = caught as Message;
    }
    assert.is(error?.error?.code, 'FORBIDDEN');
  } finally {
    client.disconnect();
    await f.close();
  }
});

sdk('a suspended user’s subscription ends at the next recheck (within a second)', async () => {
  const f = await websocketFixture();
  const client = sdkClient(f.url, 'ada-token');
  try {
    await client.connect();
    const { subscription } = await client.subscribe(PARCELS, { query: { fields: ['id'] } });
    let error: Message | undefined;
    try {
      for await (const message of subscription as AsyncIterable<Message>) {
        if (message.event !== 'init') assert.unreachable(JSON.stringify(message));
        f.tokens.delete('ada-token');
        f.ticker.tick();
        f.feed.emit(PARCELS, 1, row(1), { ...row(1), weight: 2 });
      }
    } catch (caught) {
      error = caught as Message;
    }
    assert.is(error?.error?.code, 'UNAUTHENTICATED');
  } finally {
    client.disconnect();
    await f.close();
  }
});

sdk('the SDK answers the server’s heartbeat by itself: its connection outlives many periods', async () => {
  // Server and client share this process's event loop: a period well above a pause of a loaded test run.
  const f = await websocketFixture({ heartbeatMs: 250 });
  const client = sdkClient(f.url, 'ada-token');
  try {
    const socket = await client.connect();
    let pings = 0;
    socket.addEventListener('message', (event: MessageEvent) => {
      if (JSON.parse(String(event.data)).type === 'ping') pings += 1;
    });
    const { subscription } = await client.subscribe(PARCELS, { query: { fields: ['id'] } });
    const messages = (subscription as AsyncIterable<Message>)[Symbol.asyncIterator]();
    assert.is((await messages.next()).value?.event, 'init');
    // Six periods later, a silent client would have been dropped several times over.
    while (pings < 6 && socket.readyState === WebSocket.OPEN)
      await new Promise((resolve) => setTimeout(resolve, 50));
    assert.is(socket.readyState, WebSocket.OPEN, 'the server dropped a client that answers its pings');
    f.feed.emit(PARCELS, 6, null, { ...row(1), id: 6 });
    assert.is((await messages.next()).value?.event, 'create');
  } finally {
    client.disconnect();
    await f.close();
  }
});

sdk.run();
