import { tmpdir } from 'node:os';
import { performance } from 'node:perf_hooks';
import * as assert from 'uvu/assert';
import { type Answer, call, eventually } from '../faults/http.ts';
import { createThrowawayDatabase, type ThrowawayDatabase } from '../faults/throwaway-database.ts';
import { postgresSkip, testDatabaseUrl } from '../support/postgres-server.ts';
import { skippableSuite } from '../support/skippable-suite.ts';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.ts';
import { TEST_SECRET } from '../support/test-app.ts';
import { type Instance, listenerOf, startInstance } from './instance.ts';

/**
 * Three real server processes on one database (A and B direct, C through a TCP proxy the test takes
 * down): a change made on A, or by SQL by hand, reaches a caller on B within one second — a deadline
 * polled every 50 ms, not a speed benchmark (docs/decisions/0015-cross-instance-invalidation.md).
 */
const DEADLINE_MS = 1000;
const POLL_MS = 50;
const ADMIN = { email: 'admin@example.com', password: 'admin-password-123' };
const PASSWORD = 'reader-password-123';

type Context = {
  database: ThrowawayDatabase;
  proxy: TcpProxy;
  a: Instance;
  b: Instance;
  c: Instance;
  admin: string;
  readerRole: string;
  readPermission: string;
  users: number;
};

const instances = skippableSuite<Context>('several instances on one database stay coherent', postgresSkip);

instances.before(async (context) => {
  try {
    context.database = await createThrowawayDatabase('instances');
    const target = new URL(testDatabaseUrl());
    context.proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    const env = (url: string) => ({
      NODE_ENV: 'test',
      SECRET: TEST_SECRET,
      LOG_LEVEL: 'silent',
      DATA_DIR: tmpdir(),
      DATABASE_URL: url,
      DB_CONNECT_TIMEOUT: '500',
      DB_RETRY_INTERVAL: '200',
      CHECK_SESSION_ON_EACH_REQUEST: 'true',
      ADMIN_EMAIL: ADMIN.email,
      ADMIN_PASSWORD: ADMIN.password,
    });
    // A migrates first (and creates the event trigger); B and C then start side by side.
    context.a = await startInstance(env(context.database.url()));
    [context.b, context.c] = await Promise.all([
      startInstance(env(context.database.url())),
      startInstance(env(context.database.url(context.proxy.port))),
    ]);
    context.users = 0;
    const login = await call(context.a.url, 'POST', '/auth/login', { body: ADMIN });
    context.admin = (login.body as { access_token: string }).access_token;
    await onA(context, 'POST', '/collections', {
      collection: 'notes',
      fields: [
        { field: 'id', type: 'integer', schema: { is_primary_key: true } },
        { field: 'body', type: 'string' },
      ],
    });
    await onA(context, 'POST', '/items/notes', { body: 'first' });
    context.readerRole = idOf(await onA(context, 'POST', '/roles', { name: 'reader' }));
    context.readPermission = await grantRead(context);
    // Every instance's schema mode is known before a schema change by hand is made.
    for (const instance of [context.a, context.b, context.c]) {
      await eventually(async () => (await listenerOf(instance))?.schema === 'event-trigger', 5000);
    }
  } catch (e) {
    console.log('BEFORE', e);
    throw e;
  }
});

instances.after(async ({ a, b, c, proxy, database }) => {
  await Promise.all([a?.stop(), b?.stop(), c?.stop()]);
  await proxy?.close();
  await database?.drop();
});

async function onA(context: Context, method: string, path: string, body?: unknown): Promise<Answer> {
  const answer = await call(context.a.url, method, path, { token: context.admin, body });
  assert.ok(answer.status < 300, `${method} ${path}: ${answer.status} ${answer.text}`);
  return answer;
}

function idOf(answer: Answer): string {
  return (answer.body as { id: string }).id;
}

/** A reader with a static token of its own; `as` makes it an admin's or another role's user. */
/** Lets the reader role read every field of `notes`, on A; the new permission's id. */
async function grantRead(context: Context): Promise<string> {
  return idOf(
    await onA(context, 'POST', '/permissions', {
      role: context.readerRole,
      collection: 'notes',
      action: 'read',
      fields: ['*'],
    }),
  );
}

async function newUser(context: Context, role: string | null = context.readerRole) {
  const n = ++context.users;
  const token = `static-token-of-user-${n}-${'x'.repeat(32)}`;
  const email = `user${n}@example.com`;
  const answer = await onA(context, 'POST', '/users', { email, password: PASSWORD, role, token });
  return { id: idOf(answer), token, email };
}

/** Polls `instance` every 50 ms until `path` answers `status`, failing after one second. */
async function within(instance: Instance, token: string, path: string, status: number): Promise<void> {
  const started = performance.now();
  let last: Answer | undefined;
  while (performance.now() - started <= DEADLINE_MS) {
    last = await call(instance.url, 'GET', path, { token });
    if (last.status === status) return;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  assert.unreachable(
    `${path} on ${instance.url} still answers ${last?.status} (not ${status}) after ${DEADLINE_MS} ms`,
  );
}

/** What the caller may do on B now, asked so that B caches it before the change. */
async function onB(context: Context, token: string, path: string, status: number): Promise<void> {
  const answer = await call(context.b.url, 'GET', path, { token });
  assert.is(answer.status, status, `before the change, ${path} on B: ${answer.text}`);
}

const sql = <R extends Record<string, unknown>>(context: Context, text: string, values?: unknown[]) =>
  context.database.query<R>(text, values);

instances('a user suspended on A, then by SQL, is refused on B within a second', async (context) => {
  const user = await newUser(context);
  await onB(context, user.token, '/items/notes', 200);
  await onA(context, 'PATCH', `/users/${user.id}`, { status: 'suspended' });
  await within(context.b, user.token, '/items/notes', 401);
  await onA(context, 'PATCH', `/users/${user.id}`, { status: 'active' });
  await within(context.b, user.token, '/items/notes', 200);
  await sql(context, `update datagate_users set status = 'suspended' where id = $1`, [user.id]);
  await within(context.b, user.token, '/items/notes', 401);
});

instances('a user deleted on A, or by SQL, is refused on B within a second', async (context) => {
  for (const remove of [
    (id: string) => onA(context, 'DELETE', `/users/${id}`),
    (id: string) => sql(context, 'delete from datagate_users where id = $1', [id]),
  ]) {
    const user = await newUser(context);
    await onB(context, user.token, '/items/notes', 200);
    await remove(user.id);
    await within(context.b, user.token, '/items/notes', 401);
  }
});

instances('a new static token set on A, or by SQL, works on B and the old one stops', async (context) => {
  const user = await newUser(context);
  const next = `replacement-static-token-${'y'.repeat(32)}`;
  await onB(context, user.token, '/items/notes', 200);
  // B has also looked the new token up, and found it unknown, before it was given out.
  await onB(context, next, '/items/notes', 401);
  await onA(context, 'PATCH', `/users/${user.id}`, { token: next });
  await within(context.b, next, '/items/notes', 200);
  await within(context.b, user.token, '/items/notes', 401);

  const third = `third-static-token-by-sql-${'z'.repeat(32)}`;
  await onB(context, third, '/items/notes', 401);
  await sql(
    context,
    `update datagate_users set token_digest = encode(sha256(convert_to($2, 'UTF8')), 'hex') where id = $1`,
    [user.id, third],
  );
  await within(context.b, third, '/items/notes', 200);
  await within(context.b, next, '/items/notes', 401);
});

instances(
  'a session logged out on A, or revoked by SQL, is refused on B within a second',
  async (context) => {
    const user = await newUser(context);
    for (const endSession of [
      (refresh: string) => call(context.a.url, 'POST', '/auth/logout', { body: { refresh_token: refresh } }),
      () => sql(context, 'update datagate_sessions set revoked_at = now() where user_id = $1', [user.id]),
    ]) {
      const login = await call(context.a.url, 'POST', '/auth/login', {
        body: { email: user.email, password: PASSWORD },
      });
      const pair = login.body as { access_token: string; refresh_token: string };
      await onB(context, pair.access_token, '/items/notes', 200);
      await endSession(pair.refresh_token);
      await within(context.b, pair.access_token, '/items/notes', 401);
    }
  },
);

instances('a permission removed and added on A, or by SQL, applies on B within a second', async (context) => {
  const user = await newUser(context);
  await onB(context, user.token, '/items/notes', 200);
  await onA(context, 'DELETE', `/permissions/${context.readPermission}`);
  await within(context.b, user.token, '/items/notes', 403);
  context.readPermission = await grantRead(context);
  await within(context.b, user.token, '/items/notes', 200);

  await sql(context, 'delete from datagate_permissions where id = $1', [context.readPermission]);
  await within(context.b, user.token, '/items/notes', 403);
  const [added] = await sql<{ id: string }>(
    context,
    `insert into datagate_permissions (id, role, collection, action, fields) values (gen_random_uuid(), $1, 'notes', 'read', '["*"]')
     returning id`,
    [context.readerRole],
  );
  context.readPermission = added!.id;
  await within(context.b, user.token, '/items/notes', 200);
});

instances('a role changed on A, or by SQL, applies on B within a second', async (context) => {
  const role = idOf(await onA(context, 'POST', '/roles', { name: 'promoted' }));
  const user = await newUser(context, role);
  await onB(context, user.token, '/users', 403);
  await onA(context, 'PATCH', `/roles/${role}`, { admin_access: true });
  await within(context.b, user.token, '/users', 200);
  await sql(context, 'update datagate_roles set admin_access = false where id = $1', [role]);
  await within(context.b, user.token, '/users', 403);
  await sql(context, 'update datagate_users set role = null where id = $1', [user.id]);
  await sql(context, 'update datagate_roles set admin_access = true where id = $1', [role]);
  await new Promise((resolve) => setTimeout(resolve, DEADLINE_MS));
  await onB(context, user.token, '/users', 403);
});

instances(
  'a collection created and dropped on A, or by SQL, is served on B within a second',
  async (context) => {
    await onB(context, context.admin, '/items/pages', 404);
    await onA(context, 'POST', '/collections', {
      collection: 'pages',
      fields: [{ field: 'id', type: 'integer', schema: { is_primary_key: true } }],
    });
    await within(context.b, context.admin, '/items/pages', 200);
    await onA(context, 'DELETE', '/collections/pages');
    await within(context.b, context.admin, '/items/pages', 404);

    await sql(context, 'create table "by_hand" ("id" integer primary key)');
    await within(context.b, context.admin, '/items/by_hand', 200);
    await sql(context, 'drop table "by_hand"');
    await within(context.b, context.admin, '/items/by_hand', 404);
  },
);

instances('a field created and dropped on A, or by SQL, is served on B within a second', async (context) => {
  const path = '/items/notes?fields=id,extra';
  await onB(context, context.admin, path, 400);
  await onA(context, 'POST', '/fields/notes', { field: 'extra', type: 'string' });
  await within(context.b, context.admin, path, 200);
  await onA(context, 'DELETE', '/fields/notes/extra');
  await within(context.b, context.admin, path, 400);

  await sql(context, 'alter table "notes" add column "extra" text');
  await within(context.b, context.admin, path, 200);
  await sql(context, 'alter table "notes" drop column "extra"');
  await within(context.b, context.admin, path, 400);
});

instances(
  'a lost channel drops every cache: a change missed while C could not listen is never served',
  async (context) => {
    const user = await newUser(context);
    await within(context.c, user.token, '/items/notes', 200);
    await context.proxy.down();
    await eventually(async () => (await listenerOf(context.c))?.status === 'reconnecting', DEADLINE_MS);
    // Made while C hears nothing: the notification never reaches it.
    await sql(context, `update datagate_users set status = 'suspended' where id = $1`, [user.id]);
    await context.proxy.up();
    await eventually(async () => (await listenerOf(context.c))?.status === 'ok', 10_000);
    const answer = await call(context.c.url, 'GET', '/items/notes', { token: user.token });
    assert.is(answer.status, 401, answer.text);
  },
);

instances(
  'a listening connection ended by pg_terminate_backend drops every cache: a change made meanwhile is never served',
  async (context) => {
    const user = await newUser(context);
    await onB(context, user.token, '/items/notes', 200);
    // The listeners' last query is their heartbeat, not LISTEN: they are found by application_name.
    const [ended] = await sql<{ ended: number }>(
      context,
      `select count(pg_terminate_backend(pid))::int as ended from pg_stat_activity
        where application_name = 'datagate listener' and datname = current_database()`,
    );
    assert.ok(ended!.ended >= 3, `${ended!.ended} listening connections ended`);
    await sql(context, `update datagate_users set status = 'suspended' where id = $1`, [user.id]);
    const answer = await call(context.b.url, 'GET', '/items/notes', { token: user.token });
    assert.is(answer.status, 401, answer.text);
    for (const instance of [context.a, context.b, context.c])
      await eventually(async () => (await listenerOf(instance))?.status === 'ok', 10_000);
  },
);

instances.run();
