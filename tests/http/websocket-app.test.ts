import { connect } from 'node:net';
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

/** A socket of `token`'s, subscribed to every field it may read of `collection`, past its `init`. */
async function subscribed(scenario: CargosScenario, token: string, collection: string) {
  const socket = new WebSocket(`${scenario.app.url.replace('http', 'ws')}/websocket?access_token=${token}`);
  const next = inbox(socket);
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  socket.send(JSON.stringify({ type: 'subscribe', collection, uid: 'all', query: { fields: ['*'] } }));
  assert.is((await next()).event, 'init');
  return { socket, next };
}

test('an update of only fields a subscriber may not read reaches the admin, not that subscriber', async ({
  scenario,
}) => {
  const { app } = scenario;
  const asAdmin = async (method: string, path: string, body: unknown) => {
    const response = await app.request(method, path, { token: ADMIN_STATIC_TOKEN, body });
    assert.ok(response.status < 300, `${method} ${path}: ${response.text}`);
  };
  await asAdmin('POST', '/collections', {
    collection: 'dossiers',
    fields: [
      { field: 'id', type: 'integer', schema: { is_primary_key: true } },
      { field: 'title', type: 'string' },
      { field: 'secret', type: 'string' },
    ],
  });
  const sockets: WebSocket[] = [];
  try {
    await asAdmin('POST', '/items/dossiers', { id: 1, title: 'Plan', secret: 'a' });
    const role = await app.createRole({ name: 'Reader' });
    await asAdmin('POST', '/permissions', {
      role: role.id,
      collection: 'dossiers',
      action: 'read',
      fields: ['id', 'title'],
    });
    const reader = await app.createUser({ role: role.id });
    const login = await app.request('POST', '/auth/login', {
      body: { email: reader.email, password: reader.password },
    });
    const readerToken = (login.body as { data: { access_token: string } }).data.access_token;
    const admin = await subscribed(scenario, ADMIN_STATIC_TOKEN, 'dossiers');
    const limited = await subscribed(scenario, readerToken, 'dossiers');
    sockets.push(admin.socket, limited.socket);

    await asAdmin('PATCH', '/items/dossiers/1', { secret: 'b' });
    await asAdmin('PATCH', '/items/dossiers/1', { title: 'Plan B' });
    const update = (data: unknown) => ({ type: 'subscription', event: 'update', data, uid: 'all' });
    assert.equal(await admin.next(), update([{ id: 1, title: 'Plan', secret: 'b' }]));
    assert.equal(await admin.next(), update([{ id: 1, title: 'Plan B', secret: 'b' }]));
    assert.equal(
      await limited.next(),
      update([{ id: 1, title: 'Plan B' }]),
      'the first thing the reader hears of is the change it can see',
    );
  } finally {
    for (const socket of sockets) socket.close();
    await app.persistence.schemaEditor.dropCollection('dossiers');
  }
});

/** Sends raw bytes and returns the raw answer once the server closes; null when it has not within 3 s. */
async function rawExchange(url: string, request: string): Promise<string | null> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  let answer = '';
  socket.on('data', (chunk) => {
    answer += chunk.toString('latin1');
  });
  socket.write(request);
  const closed = new Promise<string>((resolve) => socket.on('close', () => resolve(answer)));
  const late = new Promise<null>((resolve) => setTimeout(() => resolve(null), 3_000));
  const result = await Promise.race([closed, late]);
  socket.destroy();
  return result;
}

/**
 * Requests asking to upgrade: anything but a WebSocket handshake on /websocket (`Upgrade: h2c`, as `curl --http2`
 * sends on http:) is answered as the plain request it also is; a malformed handshake is refused.
 */
const UPGRADES: Array<{ name: string; request: string; status: number; body: RegExp }> = [
  {
    name: 'Upgrade: h2c on a route',
    request:
      'GET /server/ping HTTP/1.1\r\nHost: x\r\nConnection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABkAAQCAAAAAAIAAAAA\r\n\r\n',
    status: 200,
    body: /^pong$/,
  },
  {
    name: 'a WebSocket handshake on another path',
    request:
      'GET /nope HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n',
    status: 404,
    body: /"code":"NOT_FOUND"/,
  },
  {
    name: 'Upgrade: h2c on /websocket',
    request: 'GET /websocket HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: h2c\r\n\r\n',
    status: 404,
    body: /"code":"NOT_FOUND"/,
  },
  {
    name: 'Upgrade: h2c with a body',
    request: `POST /auth/login HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: h2c\r\nContent-Type: application/json\r\nContent-Length: 48\r\n\r\n${JSON.stringify({ email: 'nobody@example.com', password: 'x' }).padEnd(48)}`,
    status: 401,
    body: /"code":"INVALID_CREDENTIALS"/,
  },
];

const HANDSHAKE = (headers: string) =>
  `GET /websocket HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n${headers}\r\n`;
UPGRADES.push(
  {
    name: 'a WebSocket handshake without Sec-WebSocket-Key',
    request: HANDSHAKE('Sec-WebSocket-Version: 13\r\n'),
    status: 400,
    body: /"code":"INVALID_PAYLOAD"/,
  },
  {
    name: 'a WebSocket handshake of another version',
    request: HANDSHAKE('Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 7\r\n'),
    status: 400,
    body: /"code":"INVALID_PAYLOAD"/,
  },
  {
    name: 'a WebSocket handshake by POST',
    request:
      'POST /websocket HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\nContent-Length: 0\r\n\r\n',
    status: 404,
    body: /"code":"NOT_FOUND"/,
  },
);

for (const { name, request, status, body } of UPGRADES) {
  test(`${name} → ${status} in the contract's shape, never left hanging`, async ({ scenario }) => {
    const answer = await rawExchange(scenario.app.url, request);
    assert.ok(answer !== null, 'no answer within 3 s');
    const [head = '', text = ''] = answer.split('\r\n\r\n');
    assert.match(head, new RegExp(`^HTTP/1.1 ${status} `), head);
    assert.match(head, /X-Content-Type-Options: nosniff/i, head);
    assert.match(text, body);
  });
}

test.run();
