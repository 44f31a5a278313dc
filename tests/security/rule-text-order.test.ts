import { once } from 'node:events';
import { sql } from 'kysely';
import * as assert from 'uvu/assert';
import WebSocket from 'ws';
import type { MikroOrmPersistence } from '../../src/adapters/persistence/mikro-orm/open-mikro-orm-persistence.ts';
import { borrowed, databaseBackends } from '../support/databases.ts';
import { suitePerBackend } from '../support/suite-per-backend.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';

/**
 * A permission rule is judged by PostgreSQL for lists, and in process for writes and realtime events. On a
 * column whose collation is linguistic (en-US orders "Apple" after "a", code points before it), a text
 * range in a rule must still find the same rows through every door, or a realtime event hands out a row
 * the list hides. Rules compare text by code point (docs/decisions/0063).
 */
type Context = { app: TestApp; orm: MikroOrmPersistence['orm']; admin: string; reader: string };

/** Linguistic collations PostgreSQL may offer, in order of preference; PGlite may have none of them. */
const LINGUISTIC = ['en-US-x-icu', 'und-x-icu', 'en_US.utf8', 'en_US.UTF-8'];

/** Rows: `title < 'a'` holds for 1, 2 and 4 by code point, for 2 alone in a linguistic order. */
const ROWS: Array<[number, string, string]> = [
  [1, 'Apple', 'apple secret'],
  [2, '0 digits', 'digits secret'],
  [3, 'zebra', 'zebra secret'],
  [4, 'Banana', 'banana secret'],
];

for (const [target, test] of suitePerBackend<Context, MikroOrmPersistence>(
  databaseBackends(),
  (backend) => `a text range in a permission rule, on a linguistic collation, on ${backend}`,
)) {
  const db = (orm: MikroOrmPersistence['orm']) => orm.em.fork().getKysely();
  let collation: string | null = null;

  test.before(async (context) => {
    const persistence = await target.fresh();
    context.orm = persistence.orm;
    context.app = await startTestApp({ persistence: borrowed(persistence) });
    context.admin = (await context.app.login(await context.app.seedAdmin())).access_token;
    const { rows } = await sql<{ collname: string }>`
      select collname from pg_collation where collname = any(${LINGUISTIC})`.execute(db(context.orm));
    collation = LINGUISTIC.find((name) => rows.some((row) => row.collname === name)) ?? null;
    if (collation === null) return;
    await sql`drop table if exists rule_texts`.execute(db(context.orm));
    await sql`create table rule_texts (id integer primary key, title text collate ${sql.id(collation)},
      secret text)`.execute(db(context.orm));
    for (const [id, title, secret] of ROWS) {
      await sql`insert into rule_texts values (${id}, ${title}, ${secret})`.execute(db(context.orm));
    }
    const { rows: order } = await sql<{ after: boolean }>`
      select 'Apple' > ('a' collate ${sql.id(collation)}) as after`.execute(db(context.orm));
    assert.ok(order[0]?.after, `${collation} orders "Apple" after "a"`);
    await context.app.request('POST', '/utils/cache/clear', { token: context.admin });
    const role = await context.app.createRole({ name: 'Below a' });
    const rule = { title: { _lt: 'a' } };
    for (const [action, fields] of [
      ['read', ['*']],
      ['update', ['secret']],
    ] as const) {
      const granted = await context.app.request('POST', '/permissions', {
        token: context.admin,
        body: { role: role.id, collection: 'rule_texts', action, permissions: rule, fields },
      });
      assert.is(granted.status, 200, granted.text);
    }
    context.reader = (await context.app.login(await context.app.createUser({ role: role.id }))).access_token;
  });
  test.after(async ({ app, orm }) => {
    if (collation !== null) await sql`drop table if exists rule_texts`.execute(db(orm));
    await app.close();
    await target.dispose();
  });

  test('lists, counts, reads by key and writes find the rows the rule holds for by code point', async ({
    app,
    reader,
  }) => {
    if (collation === null) return;
    const list = await app.request('GET', '/items/rule_texts?fields=id&meta=total_count', { token: reader });
    assert.equal(list.body, [{ id: 1 }, { id: 2 }, { id: 4 }], list.text);
    assert.is(list.headers.get('x-total-count'), '3');
    assert.is((await app.request('GET', '/items/rule_texts/1', { token: reader })).status, 200);
    assert.is((await app.request('GET', '/items/rule_texts/3', { token: reader })).status, 404);
    const written = await app.request('PATCH', '/items/rule_texts/1', {
      token: reader,
      body: { secret: 'changed' },
    });
    assert.is(written.status, 200, written.text);
    const outside = await app.request('PATCH', '/items/rule_texts/3', {
      token: reader,
      body: { secret: 'changed' },
    });
    assert.is(outside.status, 404, outside.text);
  });

  test('a realtime subscriber is sent exactly the new rows a list then shows', async ({
    app,
    admin,
    reader,
  }) => {
    if (collation === null) return;
    const socket = new WebSocket(`${app.url.replace('http', 'ws')}/websocket?access_token=${reader}`);
    const messages: Array<Record<string, unknown>> = [];
    socket.on('message', (data) => messages.push(JSON.parse(String(data))));
    await once(socket, 'open');
    socket.send(
      JSON.stringify({ type: 'subscribe', collection: 'rule_texts', uid: 's', query: { limit: 0 } }),
    );
    await waitFor(() => messages.some((message) => message.event === 'init'));
    const created = await app.request('POST', '/items/rule_texts', {
      token: admin,
      body: [
        { id: 5, title: 'Cherry', secret: 'cherry secret' },
        { id: 6, title: 'cherry', secret: 'lower cherry secret' },
        { id: 7, title: '1 more', secret: 'one more secret' },
      ],
    });
    assert.is(created.status, 200, created.text);
    await waitFor(() => messages.filter((message) => message.event === 'create').length >= 2);
    socket.send(JSON.stringify({ type: 'ping', uid: 'last' }));
    await waitFor(() => messages.some((message) => message.type === 'pong'));
    socket.close();
    const sent = messages
      .filter((message) => message.event === 'create')
      .flatMap((message) => (message.data as Array<{ id: number }>).map((item) => item.id));
    const listed = await app.request('GET', '/items/rule_texts?fields=id&filter[id][_gte]=5', {
      token: reader,
    });
    assert.equal(
      (listed.body as Array<{ id: number }>).map((item) => item.id),
      sent,
    );
    assert.equal(sent, [5, 7]);
  });

  test.run();
}

async function waitFor(condition: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out waiting for the realtime messages');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
