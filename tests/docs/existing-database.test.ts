import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import { call } from '../faults/http.ts';
import { createThrowawayDatabase, type ThrowawayDatabase } from '../faults/throwaway-database.ts';
import { type Served, serve } from '../support/datagate-process.ts';
import { postgresSkip } from '../support/postgres-server.ts';
import { skippableSuite } from '../support/skippable-suite.ts';

/** What README "Running against an existing PostgreSQL database with its own tables" promises. */

const ADMIN = { email: 'admin@example.com', password: 'admin-password' };
const CLERK = { email: 'clerk@example.com', password: 'clerk-password' };

/** A database as an application left it: its own tables, a view, another schema, rows written by SQL. */
const EXISTING_SCHEMA = `
  create table shipments (
    id serial primary key,
    name text not null,
    weight numeric(8, 2),
    origin inet,
    shipped_at timestamptz
  );
  insert into shipments (name, weight, origin, shipped_at) values
    ('Bananas', 12.5, '10.0.0.1', '2024-05-01 10:00+00'),
    ('Coffee', 3, null, null);
  create table audit_lines (at timestamptz, line text);
  insert into audit_lines values ('2024-05-01 10:00+00', 'started');
  create table pairs (a int, b int, note text, details json, primary key (a, b));
  insert into pairs values (1, 2, 'composite', '{"size": {"w": 3}, "tags": ["x", "y"]}');
  create view heavy_shipments as select * from shipments where weight > 10;
  create type ripeness as enum ('green', 'ripe', 'overripe');
  create table fruit_boxes (
    id int primary key,
    tags text[],
    counts int4[],
    state ripeness,
    history ripeness[]
  );
  insert into fruit_boxes values
    (1, '{fruit}', '{1,2}', 'ripe', '{green,ripe}'),
    (2, '{}', null, 'green', '{}');
  create schema archive;
  create table archive.old_shipments (id int primary key);
`;

const tablesOf = async (database: ThrowawayDatabase) =>
  (
    await database.query<{ name: string }>(
      `select table_schema || '.' || table_name as name from information_schema.tables
        where table_schema in ('public', 'archive') order by 1`,
    )
  ).map((row) => row.name);

type Context = { database: ThrowawayDatabase; dataDir: string; server: Served; admin: string };

const existing = skippableSuite<Context>(
  'datagate on an existing PostgreSQL database with its own tables',
  postgresSkip,
);

existing.before(async (context) => {
  context.database = await createThrowawayDatabase('existing');
  await context.database.query(EXISTING_SCHEMA);
  context.dataDir = mkdtempSync(join(tmpdir(), 'datagate-existing-'));
  context.server = await serve({
    DATABASE_URL: context.database.url(),
    DATA_DIR: context.dataDir,
    ADMIN_EMAIL: ADMIN.email,
    ADMIN_PASSWORD: ADMIN.password,
  });
  const login = await call(context.server.url, 'POST', '/auth/login', { body: ADMIN });
  context.admin = (login.body as { access_token: string }).access_token;
});

existing.after(async ({ server, database, dataDir }) => {
  await server?.stop();
  await database?.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

existing('the first start adds only datagate_* tables and leaves the rows alone', async ({ database }) => {
  assert.equal(await tablesOf(database), [
    'archive.old_shipments',
    'public.audit_lines',
    // Activity and revisions (docs/api.md §14).
    'public.datagate_activity',
    // Files (docs/api.md §15).
    'public.datagate_files',
    // The items' change log (docs/api.md §12).
    'public.datagate_item_events',
    // The login throttle's counters: in PostgreSQL by default there, made at the first login.
    'public.datagate_login_throttle',
    'public.datagate_migrations',
    'public.datagate_permissions',
    'public.datagate_revisions',
    'public.datagate_roles',
    'public.datagate_sessions',
    // Files' bytes in large objects (storage.driver: postgres, docs/decisions/0038).
    'public.datagate_storage_objects',
    // The unfinished resumable uploads of each user (docs/api.md §15).
    'public.datagate_unfinished_uploads',
    'public.datagate_users',
    'public.fruit_boxes',
    'public.heavy_shipments',
    'public.pairs',
    'public.shipments',
  ]);
  assert.equal(await database.query('select id, name from shipments order by id'), [
    { id: 1, name: 'Bananas' },
    { id: 2, name: 'Coffee' },
  ]);
});

existing(
  'every table and view of the public schema is a collection, views read-only; other schemas are not',
  async ({ server, admin }) => {
    const collections = await call(server.url, 'GET', '/collections', { token: admin });
    const listed = collections.body as Array<{ collection: string; read_only: boolean }>;
    assert.equal(listed.map(({ collection, read_only }) => [collection, read_only]).sort(), [
      ['audit_lines', false],
      ['fruit_boxes', false],
      ['heavy_shipments', true],
      ['pairs', false],
      ['shipments', false],
    ]);
    for (const hidden of ['old_shipments', 'datagate_users']) {
      const answer = await call(server.url, 'GET', `/items/${hidden}`, { token: admin });
      assert.is(answer.status, 404, hidden);
    }
  },
);

existing('an admin reads, filters and writes the rows SQL put there', async ({ server, admin }) => {
  const list = await call(server.url, 'GET', '/items/shipments?sort=id', { token: admin });
  assert.equal(list.body, [
    {
      id: 1,
      name: 'Bananas',
      weight: 12.5,
      origin: '10.0.0.1/32',
      shipped_at: '2024-05-01T10:00:00+00:00',
    },
    { id: 2, name: 'Coffee', weight: 3, origin: null, shipped_at: null },
  ]);
  const one = await call(server.url, 'GET', '/items/shipments/2?fields=name', { token: admin });
  assert.equal(one.body, { name: 'Coffee' });
  const heavy = await call(server.url, 'GET', '/items/shipments?filter[weight][_gt]=10&fields=id', {
    token: admin,
  });
  assert.equal(heavy.body, [{ id: 1 }]);
  const renamed = await call(server.url, 'PATCH', '/items/shipments/2', {
    token: admin,
    body: { name: 'Coffee beans' },
  });
  assert.is(renamed.status, 200, renamed.text);
  assert.is((renamed.body as { name: string }).name, 'Coffee beans');
});

existing(
  'a role gets nothing until a permission grants it, then only the granted fields',
  async ({ server, admin }) => {
    const role = await call(server.url, 'POST', '/roles', { token: admin, body: { name: 'Clerk' } });
    const roleId = (role.body as { id: string }).id;
    await call(server.url, 'POST', '/users', { token: admin, body: { ...CLERK, role: roleId } });
    const login = await call(server.url, 'POST', '/auth/login', { body: CLERK });
    const clerk = (login.body as { access_token: string }).access_token;

    assert.is((await call(server.url, 'GET', '/items/shipments', { token: clerk })).status, 403);
    assert.is((await call(server.url, 'GET', '/items/shipments')).status, 401);

    const granted = await call(server.url, 'POST', '/permissions', {
      token: admin,
      body: { role: roleId, collection: 'shipments', action: 'read', fields: ['id', 'name'] },
    });
    assert.is(granted.status, 200, granted.text);
    const list = await call(server.url, 'GET', '/items/shipments?sort=id', { token: clerk });
    assert.equal(list.body, [
      { id: 1, name: 'Bananas' },
      { id: 2, name: 'Coffee beans' },
    ]);
    assert.is((await call(server.url, 'GET', '/items/audit_lines', { token: clerk })).status, 403);
  },
);

existing(
  'a column of a type the API does not model reads as text, and only null tests apply',
  async ({ server, admin }) => {
    const nulls = await call(server.url, 'GET', '/items/shipments?filter[origin][_null]=true&fields=id', {
      token: admin,
    });
    assert.equal(nulls.body, [{ id: 2 }]);
    const compared = await call(server.url, 'GET', '/items/shipments?filter[origin][_eq]=10.0.0.1', {
      token: admin,
    });
    assert.is(compared.status, 400);
    const sorted = await call(server.url, 'GET', '/items/shipments?sort=origin', { token: admin });
    assert.is(sorted.status, 400);
    const written = await call(server.url, 'PATCH', '/items/shipments/1', {
      token: admin,
      body: { origin: '10.0.0.2' },
    });
    assert.is(written.status, 400);
    assert.is(
      (written.body as { errors: [{ extensions: { code: string } }] }).errors[0].extensions.code,
      'FAILED_VALIDATION',
    );
  },
);

existing(
  'values inside json columns are read with json(field, path) in fields',
  async ({ server, admin }) => {
    const fields = encodeURIComponent('a,json(details, size.w),json(details, tags[1]),json(details, nope)');
    const list = await call(server.url, 'GET', `/items/pairs?fields=${fields}`, { token: admin });
    assert.is(list.status, 200, list.text);
    assert.equal(list.body, [
      { a: 1, details_size_w_json: 3, details_tags_1_json: 'y', details_nope_json: null },
    ]);
  },
);

existing(
  'a table without a single-column key is readable, but its items have no address',
  async ({ server, admin }) => {
    for (const table of ['audit_lines', 'pairs']) {
      const list = await call(server.url, 'GET', `/items/${table}`, { token: admin });
      assert.is(list.status, 200, list.text);
      assert.is((list.body as unknown[]).length, 1);
    }
    const filtered = await call(server.url, 'GET', '/items/pairs?filter[note][_eq]=composite&fields=a,b', {
      token: admin,
    });
    assert.equal(filtered.body, [{ a: 1, b: 2 }]);
    const byKey = await call(server.url, 'GET', '/items/pairs/1', { token: admin });
    assert.is(byKey.status, 404);
    const byQuery = { filter: { line: { _eq: 'started' } } };
    const update = await call(server.url, 'PATCH', '/items/audit_lines', {
      token: admin,
      body: { query: byQuery, data: { line: 'changed' } },
    });
    assert.is(update.status, 404);
    const removal = await call(server.url, 'DELETE', '/items/audit_lines', {
      token: admin,
      body: { query: byQuery },
    });
    assert.is(removal.status, 404);
    const created = await call(server.url, 'POST', '/items/audit_lines', {
      token: admin,
      body: { line: 'added by the API' },
    });
    assert.is(created.status, 204);
  },
);

existing(
  'a table created by SQL while the server runs appears, at the latest after a cache clear',
  async ({ server, admin, database }) => {
    await database.query(
      "create table late_arrivals (id int primary key, note text); insert into late_arrivals values (1, 'hi')",
    );
    // The change feed may show it before the clear (docs/decisions/0015); the clear shows it in any case.
    assert.is((await call(server.url, 'POST', '/utils/cache/clear', { token: admin })).status, 204);
    const list = await call(server.url, 'GET', '/items/late_arrivals', { token: admin });
    assert.equal(list.body, [{ id: 1, note: 'hi' }]);
  },
);

const errorOf = (body: unknown) =>
  (body as { errors: [{ extensions: { code: string; reason?: string; field?: string } }] }).errors[0]
    .extensions;

existing(
  'arrays read as JSON arrays, filter by element and are written from JSON arrays',
  async ({ server, admin }) => {
    const get = (path: string) => call(server.url, 'GET', path, { token: admin });
    const list = await get('/items/fruit_boxes?sort=id');
    assert.equal(list.body, [
      { id: 1, tags: ['fruit'], counts: [1, 2], state: 'ripe', history: ['green', 'ripe'] },
      { id: 2, tags: [], counts: null, state: 'green', history: [] },
    ]);
    assert.equal((await get('/items/fruit_boxes?filter[tags][_contains]=fruit&fields=id')).body, [{ id: 1 }]);
    const intersects = '/items/fruit_boxes?fields=id&filter={"counts":{"_intersects":[2,3]}}';
    assert.equal((await get(encodeURI(intersects))).body, [{ id: 1 }]);
    assert.equal((await get('/items/fruit_boxes?filter[tags][_empty]=true&fields=id')).body, [{ id: 2 }]);
    const badOperand = await get('/items/fruit_boxes?filter[counts][_contains]=many');
    assert.is(badOperand.status, 400);
    assert.is(errorOf(badOperand.body).code, 'INVALID_QUERY');
    const badOperator = await get('/items/fruit_boxes?filter[tags][_eq]=fruit');
    assert.is(badOperator.status, 400);
    assert.is(errorOf(badOperator.body).reason, 'UNSUPPORTED_OPERATOR');

    const created = await call(server.url, 'POST', '/items/fruit_boxes', {
      token: admin,
      body: { id: 3, tags: ['a', null, 'b "c"'], counts: [7], history: ['overripe'] },
    });
    assert.is(created.status, 200, created.text);
    assert.equal(created.body, {
      id: 3,
      tags: ['a', null, 'b "c"'],
      counts: [7],
      state: null,
      history: ['overripe'],
    });
    for (const body of [
      { counts: ['seven'] },
      { counts: '{7}' },
      { counts: [[7]] },
      { counts: [2147483648] },
    ]) {
      const refused = await call(server.url, 'PATCH', '/items/fruit_boxes/3', { token: admin, body });
      assert.is(refused.status, 400, JSON.stringify(body));
      assert.equal(
        errorOf(refused.body),
        { code: 'FAILED_VALIDATION', field: 'counts' },
        JSON.stringify(body),
      );
    }
  },
);

existing(
  'enums list their labels in /fields, take only those labels, and filter by them',
  async ({ server, admin }) => {
    const field = await call(server.url, 'GET', '/fields/fruit_boxes/state', { token: admin });
    const view = field.body as { type: string; choices: string[]; meta: unknown };
    assert.is(view.type, 'string');
    assert.equal(view.choices, ['green', 'ripe', 'overripe']);
    assert.equal(view.meta, {
      options: {
        choices: [
          { text: 'green', value: 'green' },
          { text: 'ripe', value: 'ripe' },
          { text: 'overripe', value: 'overripe' },
        ],
      },
    });
    const history = await call(server.url, 'GET', '/fields/fruit_boxes/history', { token: admin });
    assert.equal((history.body as { element_type: string; choices: string[] }).element_type, 'string');
    assert.equal((history.body as { choices: string[] }).choices, ['green', 'ripe', 'overripe']);

    const green = await call(server.url, 'GET', '/items/fruit_boxes?filter[state][_eq]=green&fields=id', {
      token: admin,
    });
    assert.equal(green.body, [{ id: 2 }]);
    const unknownLabel = await call(server.url, 'GET', '/items/fruit_boxes?filter[state][_eq]=rotten', {
      token: admin,
    });
    assert.is(unknownLabel.status, 400);
    assert.is(errorOf(unknownLabel.body).code, 'INVALID_QUERY');
    const ripened = await call(server.url, 'PATCH', '/items/fruit_boxes/2', {
      token: admin,
      body: { state: 'ripe' },
    });
    assert.is(ripened.status, 200, ripened.text);
    assert.is((ripened.body as { state: string }).state, 'ripe');
    for (const body of [{ state: 'rotten' }, { history: ['green', 'Rotten'] }]) {
      const refused = await call(server.url, 'PATCH', '/items/fruit_boxes/2', { token: admin, body });
      assert.is(refused.status, 400, JSON.stringify(body));
      assert.is(errorOf(refused.body).code, 'FAILED_VALIDATION');
      assert.is(errorOf(refused.body).field, Object.keys(body)[0]);
    }
  },
);

existing(
  'a view reads under the same permissions, and every change to it is refused',
  async ({ server, admin }) => {
    const read = await call(server.url, 'GET', '/items/heavy_shipments?fields=name', { token: admin });
    assert.equal(read.body, [{ name: 'Bananas' }]);
    const refusals = [
      ['POST', '/items/heavy_shipments', { name: 'Melons' }],
      ['PATCH', '/items/heavy_shipments', { query: { filter: {} }, data: { name: 'x' } }],
      ['DELETE', '/items/heavy_shipments', { query: { filter: {} } }],
      ['POST', '/fields/heavy_shipments', { field: 'extra', type: 'text' }],
      ['DELETE', '/fields/heavy_shipments/name', undefined],
      ['DELETE', '/collections/heavy_shipments', undefined],
    ] as const;
    for (const [method, path, body] of refusals) {
      const answer = await call(server.url, method, path, { token: admin, ...(body ? { body } : {}) });
      assert.is(answer.status, 403, `${method} ${path}: ${answer.text}`);
      assert.is(errorOf(answer.body).reason, 'READ_ONLY_COLLECTION', `${method} ${path}`);
    }
    assert.equal(
      (await call(server.url, 'GET', '/items/shipments?fields=id&sort=id', { token: admin })).body,
      [{ id: 1 }, { id: 2 }],
    );

    const login = await call(server.url, 'POST', '/auth/login', { body: CLERK });
    const clerk = (login.body as { access_token: string }).access_token;
    const roleId = ((await call(server.url, 'GET', '/users/me', { token: clerk })).body as { role: string })
      .role;
    assert.is((await call(server.url, 'GET', '/items/heavy_shipments', { token: clerk })).status, 403);
    const anonymousWrite = await call(server.url, 'POST', '/items/heavy_shipments', {
      token: clerk,
      body: {},
    });
    assert.is(
      errorOf(anonymousWrite.body).reason,
      undefined,
      'no permission: the usual refusal, nothing about views',
    );
    await call(server.url, 'POST', '/permissions', {
      token: admin,
      body: { role: roleId, collection: 'heavy_shipments', action: 'read', fields: ['name'] },
    });
    const clerkRead = await call(server.url, 'GET', '/items/heavy_shipments', { token: clerk });
    assert.equal(clerkRead.body, [{ name: 'Bananas' }]);
    const hidden = await call(server.url, 'GET', '/items/heavy_shipments?fields=weight', { token: clerk });
    assert.is(hidden.status, 403);
  },
);

existing.run();
