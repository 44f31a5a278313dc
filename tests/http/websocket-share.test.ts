import { once } from 'node:events';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { WebSocket } from 'ws';
import type { ItemSubscriptions } from '../../src/application/realtime/item-subscriptions.ts';
import { TYPES } from '../../src/container.ts';
import { until } from '../support/event-source-client.ts';
import { FakeItemSubscriptions } from '../support/fakes/fake-item-subscriptions.ts';
import { type SeededUser, startTestApp, type TestApp } from '../support/test-app.ts';

type Context = { app: TestApp; fake: FakeItemSubscriptions; admin: SeededUser; token: string };

/**
 * A subscribe's `init` is a list the caller's query shapes: on the composed app it runs within the caller's
 * share of the work served at once (`limits.perCaller`, docs/api.md §4a), the very share the HTTP routes take
 * their turns from, and carries the caller's database work (the read statement bound).
 */
const test = suite<Context>("/websocket subscribes within the caller's share of the routes");

test.before.each(async (context) => {
  context.fake = new FakeItemSubscriptions();
  context.app = await startTestApp({
    // One turn each, no borrowing, nobody waits: a turn held shows as the next request's 429.
    env: { PER_CALLER_CONCURRENCY: '1', PER_CALLER_BURST: '1', PER_CALLER_QUEUE: '0' },
    rebind: (container) =>
      container.rebind<ItemSubscriptions>(TYPES.ItemSubscriptions).toConstantValue(context.fake),
  });
  context.admin = await context.app.seedAdmin();
  context.token = (await context.app.login(context.admin)).access_token;
});
test.after.each(async ({ app }) => {
  await app.close();
});

test("a subscribe's init holds a turn of the caller's share; a request meanwhile is 429, after it served", async ({
  app,
  fake,
  admin,
  token,
}) => {
  let release!: () => void;
  fake.gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const socket = new WebSocket(`${app.url.replace('http', 'ws')}/websocket?access_token=${token}`);
  const messages: Array<Record<string, unknown>> = [];
  socket.on('message', (data) => messages.push(JSON.parse(String(data)) as Record<string, unknown>));
  try {
    await once(socket, 'open');
    socket.send(JSON.stringify({ type: 'subscribe', collection: 'cargos', uid: 'held' }));
    await until(() => fake.waiting === 1);

    const meanwhile = await app.request('GET', '/users/me', { token });
    assert.is(meanwhile.status, 429, 'the init holds the one turn');

    release();
    fake.gate = null;
    await until(() => messages.some((message) => message.event === 'init'));
    assert.is((await app.request('GET', '/users/me', { token })).status, 200);
    assert.equal(fake.subscribers[0]!.request.work, {
      kind: 'admin',
      caller: `user ${admin.id}`,
      readsOnly: true,
    });
  } finally {
    socket.close();
  }
});

test.run();
