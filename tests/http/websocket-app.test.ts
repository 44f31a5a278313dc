import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { WebSocket } from 'ws';
import {
  ADMIN_STATIC_TOKEN,
  type CargosScenario,
  ID,
  startCargosScenario,
} from '../directus/cargos-scenario.ts';
import { backends } from '../support/databases.ts';

type Message = { type: string; event?: string; data?: unknown };

/** The messages of a socket in arrival order, taken one at a time. */
function inbox(socket: WebSocket) {
  const queued: Message[] = [];
  const waiting: Array<(message: Message) => void> = [];
  socket.on('message', (raw) => {
    const message = JSON.parse(String(raw)) as Message;
    const taker = waiting.shift();
    if (taker) taker(message);
    else queued.push(message);
  });
  return () =>
    new Promise<Message>((resolve) => {
      const message = queued.shift();
      if (message) resolve(message);
      else waiting.push(resolve);
    });
}

/**
 * The whole chain on the composed app (memory): `/websocket` attached to the API's server, a write through the
 * REST API recorded in the change log, judged by the hub with the subscriber's rules, delivered in order.
 */
const test = suite<{ scenario: CargosScenario }>('/websocket on the composed app');

test.before.each(async (context) => {
  context.scenario = await startCargosScenario(backends()[0]!.persistence());
});
test.after.each(async ({ scenario }) => scenario.close());

test('REST writes reach a subscriber as create, update and delete, shaped by its fields', async ({
  scenario,
}) => {
  const url = `${scenario.app.url.replace('http', 'ws')}/websocket?access_token=${ADMIN_STATIC_TOKEN}`;
  const socket = new WebSocket(url);
  const next = inbox(socket);
  const write = (method: string, path: string, body?: unknown) =>
    scenario.app.request(method, path, { token: ADMIN_STATIC_TOKEN, ...(body ? { body } : {}) });
  try {
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
    socket.send(
      JSON.stringify({
        type: 'subscribe',
        collection: 'cargos',
        uid: 'live',
        query: { fields: ['id', 'description'], filter: { id: { _eq: ID.missing } } },
      }),
    );
    assert.equal(await next(), { type: 'subscription', event: 'init', data: [], uid: 'live' });
    assert.is((await write('POST', '/items/cargos', { id: ID.missing, description: 'Live' })).status, 200);
    assert.equal(await next(), {
      type: 'subscription',
      event: 'create',
      data: [{ id: ID.missing, description: 'Live' }],
      uid: 'live',
    });
    assert.is((await write('PATCH', `/items/cargos/${ID.missing}`, { description: 'Livelier' })).status, 200);
    assert.equal(await next(), {
      type: 'subscription',
      event: 'update',
      data: [{ id: ID.missing, description: 'Livelier' }],
      uid: 'live',
    });
    assert.is((await write('DELETE', `/items/cargos/${ID.missing}`)).status, 204);
    assert.equal(await next(), { type: 'subscription', event: 'delete', data: [ID.missing], uid: 'live' });
  } finally {
    socket.close();
  }
});

test.run();
