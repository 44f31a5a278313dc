import * as assert from 'uvu/assert';
import { TYPES } from '../../src/container.ts';
import { follow, until } from '../support/event-source-client.ts';
import { skippableSuite } from '../support/skippable-suite.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';

/**
 * The event stream on the real subscriptions and change log (the composition root's), in memory: what an
 * operator whose rule hides deleted cargos receives while an admin writes. Skipped while the composition
 * root binds no ItemSubscriptions.
 */
const probe = await startTestApp();
const wired = probe.container.isBound(TYPES.ItemSubscriptions);
await probe.close();

const CARGOS_FIELDS = [
  { field: 'id', type: 'integer', schema: { is_primary_key: true } },
  { field: 'description', type: 'text' },
  { field: 'temperature', type: 'float' },
  { field: 'is_deleted', type: 'boolean', schema: { is_nullable: false, default_value: false } },
];

type Context = { app: TestApp; admin: string; operator: string; permission: string };

const live = skippableSuite<Context>(
  'event streams on the real subscriptions',
  wired ? undefined : 'no ItemSubscriptions bound',
);

live.before.each(async (context) => {
  context.app = await startTestApp({ env: { REALTIME_SSE_RETRY: '10ms' } });
  const { app } = context;
  context.admin = (await app.login(await app.seedAdmin())).access_token;
  const created = await app.request('POST', '/collections', {
    token: context.admin,
    body: { collection: 'cargos', fields: CARGOS_FIELDS },
  });
  assert.is(created.status, 200, created.text);
  const role = await app.createRole({ name: 'Operator' });
  const permission = await app.request('POST', '/permissions', {
    token: context.admin,
    body: {
      role: role.id,
      collection: 'cargos',
      action: 'read',
      permissions: { is_deleted: { _eq: false } },
      fields: ['id', 'description', 'temperature'],
    },
  });
  assert.is(permission.status, 200, permission.text);
  context.permission = (permission.body as { id: string }).id;
  context.operator = (await app.login(await app.createUser({ role: role.id }))).access_token;
});
live.after.each(async ({ app }) => {
  await app.close();
});

const write = async (app: TestApp, token: string, method: string, path: string, body: unknown) => {
  const response = await app.request(method, path, { token, body });
  assert.ok(response.status < 300, response.text);
};

live(
  'an operator is told of the rows it may read, with its fields, and never of the others',
  async ({ app, admin, operator }) => {
    await write(app, admin, 'POST', '/items/cargos', { id: 1, description: 'Fish', temperature: -18 });
    const { source, received } = follow(app, '/items/cargos/events?fields=id,temperature', operator);
    await until(() => received.length === 1);
    assert.equal(JSON.parse(received[0]!.data), [{ id: 1, temperature: -18 }]);

    await write(app, admin, 'POST', '/items/cargos', { id: 2, description: 'Hidden', is_deleted: true });
    await write(app, admin, 'POST', '/items/cargos', { id: 3, description: 'Bananas', temperature: 13 });
    await write(app, admin, 'PATCH', '/items/cargos/2', { temperature: 5 });
    await write(app, admin, 'PATCH', '/items/cargos/3', { is_deleted: true });
    await write(app, admin, 'PATCH', '/items/cargos/2', { is_deleted: false });
    await until(() => received.length === 4);
    source.close();
    assert.equal(
      received.slice(1).map(({ type, data }) => [type, JSON.parse(data)]),
      [
        ['create', [{ id: 3, temperature: 13 }]],
        ['delete', [3]],
        ['create', [{ id: 2, temperature: 5 }]],
      ],
    );
  },
);

live(
  'a reconnection resumes after Last-Event-ID without missing a change',
  async ({ app, admin, operator }) => {
    const first = follow(app, '/items/cargos/events', operator);
    await until(() => first.received.length === 1);
    await write(app, admin, 'POST', '/items/cargos', { id: 1, description: 'Fish' });
    await until(() => first.received.length === 2);
    first.source.close();
    await write(app, admin, 'POST', '/items/cargos', { id: 2, description: 'Bananas' });

    const resumed = follow(app, '/items/cargos/events', operator, first.received[1]!.id);
    await write(app, admin, 'DELETE', '/items/cargos/1', undefined);
    await until(() => resumed.received.length === 2);
    resumed.source.close();
    assert.equal(
      resumed.received.map(({ type, data }) => [type, JSON.parse(data)]),
      [
        ['create', [{ id: 2, description: 'Bananas', temperature: null }]],
        ['delete', [1]],
      ],
    );
  },
);

live('a position the log never gave out gets a resync', async ({ app, operator }) => {
  const { source, received } = follow(app, '/items/cargos/events', operator, '999999');
  await until(() => received.length === 2);
  source.close();
  assert.equal(
    received.map(({ type }) => type),
    ['resync', 'init'],
  );
});

live('a removed permission ends the stream with FORBIDDEN', async ({ app, admin, operator, permission }) => {
  const { source, received, statuses } = follow(app, '/items/cargos/events', operator);
  await until(() => received.length === 1);
  const removed = await app.request('DELETE', `/permissions/${permission}`, { token: admin });
  assert.is(removed.status, 204, removed.text);
  await until(() => received.length === 2);
  await until(() => statuses.length === 2);
  source.close();
  assert.is(received[1]!.type, 'end');
  assert.is(JSON.parse(received[1]!.data).reason, 'FORBIDDEN');
  assert.is(statuses[1], 403);
});

live('an access token that expires ends the stream with TOKEN_EXPIRED', async ({ app, operator }) => {
  const { source, received, statuses } = follow(app, '/items/cargos/events', operator);
  await until(() => received.length === 1);
  app.clock.advance(16 * 60_000);
  await until(() => received.length === 2 && statuses.length === 2);
  source.close();
  assert.is(received[1]!.type, 'end');
  assert.is(JSON.parse(received[1]!.data).reason, 'TOKEN_EXPIRED');
  assert.is(statuses[1], 401);
});

live.run();
