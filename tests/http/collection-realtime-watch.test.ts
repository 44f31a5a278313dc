import { type Kysely, sql } from 'kysely';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { MikroOrmPersistence } from '../../src/adapters/persistence/mikro-orm/open-mikro-orm-persistence.ts';
import { userTablesDatabase } from '../../src/adapters/persistence/postgres/postgres-collections.ts';
import { borrowed, databaseBackends } from '../support/databases.ts';
import { suitePerBackend } from '../support/suite-per-backend.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { assertError, firstError } from './scenario.ts';

/** Names no other suite uses: database targets are shared by every suite of the process. */
const WATCHED = 'dg_watch_api';
const KEYLESS = 'dg_watch_api_keyless';
const VIEW = 'dg_watch_api_view';

type Context = { app: TestApp; db: Kysely<unknown>; persistence: MikroOrmPersistence; admin: string };

const meta = (app: TestApp, admin: string, body: Record<string, unknown>, collection = WATCHED) =>
  app.request('PATCH', `/collections/${collection}`, { token: admin, body: { meta: body } });

const watchOf = async (app: TestApp, admin: string, collection = WATCHED) => {
  const read = await app.request('GET', `/collections/${collection}`, { token: admin });
  assert.is(read.status, 200, read.text);
  return (read.body as { meta: { realtime_watch: unknown } }).meta.realtime_watch;
};

async function dropAll(db: Kysely<unknown>): Promise<void> {
  await sql.raw(`drop view if exists ${VIEW}`).execute(db);
  await sql.raw(`drop table if exists ${WATCHED}, ${KEYLESS}`).execute(db);
}

/**
 * `meta.realtime_watch` (docs/api.md §7 and §12): the trigger of `datagate realtime watch`, turned on and off
 * by an admin through PATCH /collections/:collection, with the command's refusals.
 */
for (const [target, test] of suitePerBackend<Context, MikroOrmPersistence>(
  databaseBackends(),
  (name) => `meta.realtime_watch on ${name}`,
)) {
  test.before.each(async (context) => {
    context.persistence = await target.fresh();
    context.db = userTablesDatabase(context.persistence.orm);
    await dropAll(context.db);
    await sql.raw(`create table ${WATCHED} (id integer primary key, name text)`).execute(context.db);
    await sql.raw(`create table ${KEYLESS} (reading integer)`).execute(context.db);
    await sql.raw(`create view ${VIEW} as select id, name from ${WATCHED}`).execute(context.db);
    context.app = await startTestApp({ persistence: borrowed(context.persistence) });
    context.admin = (await context.app.login(await context.app.seedAdmin())).access_token;
    await context.app.request('POST', '/utils/cache/clear', { token: context.admin });
  });
  test.after.each(async ({ app, db, persistence }) => {
    await persistence.watch?.unwatch(WATCHED);
    await app.close();
    await dropAll(db);
  });
  test.after(() => target.dispose());

  /** The events hand-made inserts left in the log after `position`, by key. */
  async function handMade(context: Context, id: number): Promise<unknown[]> {
    const position = await context.persistence.itemEvents!.latest();
    await sql.raw(`insert into ${WATCHED} (id, name) values (${id}, 'by hand')`).execute(context.db);
    const events = await context.persistence.itemEvents!.since(position, 100);
    return (events ?? []).map((event) => event.key);
  }

  test('each PATCH that changes the watch records one activity entry, in its own transaction', async (context) => {
    const { app, admin } = context;
    const entries = async () => {
      const read = await app.request(
        'GET',
        `/activity?filter[collection][_eq]=datagate_collections&filter[item][_eq]=${WATCHED}&fields=action`,
        { token: admin },
      );
      assert.is(read.status, 200, read.text);
      return (read.body as unknown[]).length;
    };
    assert.is(await entries(), 0);
    assert.is((await meta(app, admin, { realtime_watch: true, accountability: 'activity' })).status, 200);
    assert.is(await entries(), 1);
    assert.is((await meta(app, admin, { realtime_watch: false })).status, 200);
    assert.is(await entries(), 2);
    assert.is((await meta(app, admin, { realtime_watch: true }, KEYLESS)).status, 400);
    assert.is(await entries(), 2);
  });

  test('an admin turns the watch on and off; reads show it; hand-made writes follow it', async (context) => {
    const { app, admin } = context;
    assert.is(await watchOf(app, admin), false);
    assert.equal(await handMade(context, 1), []);

    const on = await meta(app, admin, { realtime_watch: true });
    assert.is(on.status, 200, on.text);
    assert.equal((on.body as { meta: unknown }).meta, { accountability: 'all', realtime_watch: true });
    assert.is(await watchOf(app, admin), true);
    const list = await app.request('GET', '/collections', { token: admin });
    const listed = (list.body as Array<{ collection: string; meta: { realtime_watch: unknown } }>).filter(
      (collection) => collection.collection.startsWith('dg_watch_api'),
    );
    assert.equal(
      listed.map((collection) => [collection.collection, collection.meta.realtime_watch]),
      [
        [WATCHED, true],
        [KEYLESS, false],
        [VIEW, false],
      ],
    );
    assert.equal(await handMade(context, 2), [2]);
    // Again renews in place: still one event per change.
    assert.is((await meta(app, admin, { realtime_watch: true })).status, 200);
    assert.equal(await handMade(context, 3), [3]);

    const off = await meta(app, admin, { realtime_watch: false });
    assert.is(off.status, 200, off.text);
    assert.is((off.body as { meta: { realtime_watch: unknown } }).meta.realtime_watch, false);
    assert.equal(await handMade(context, 4), []);
    // Off when already off is nothing to do.
    assert.is((await meta(app, admin, { realtime_watch: false })).status, 200);
  });

  test('a column changed by hand shows the watch stale; watching again renews it', async (context) => {
    const { app, admin, db } = context;
    assert.is((await meta(app, admin, { realtime_watch: true })).status, 200);
    await sql.raw(`alter table ${WATCHED} add column note text`).execute(db);
    assert.is(await watchOf(app, admin), 'stale');
    // Without a POST /utils/cache/clear first: the columns are read again before the watch is renewed.
    const renewed = await meta(app, admin, { realtime_watch: true });
    assert.is(renewed.status, 200, renewed.text);
    assert.is((renewed.body as { meta: { realtime_watch: unknown } }).meta.realtime_watch, true);
    assert.equal(await handMade(context, 5), [5]);
  });

  test('refused as the command refuses: others than admins, views, keyless tables, bad values', async (context) => {
    const { app, admin } = context;
    const operator = (await app.login(await app.createUser())).access_token;
    assertError(await meta(app, operator, { realtime_watch: true }), 403, 'FORBIDDEN');
    const view = await meta(app, admin, { realtime_watch: true }, VIEW);
    assertError(view, 403, 'FORBIDDEN');
    assert.is(firstError(view).extensions.reason, 'READ_ONLY_COLLECTION');
    assertError(await meta(app, admin, { realtime_watch: false }, VIEW), 403, 'FORBIDDEN');
    assertError(await meta(app, admin, { realtime_watch: true }, KEYLESS), 400, 'INVALID_PAYLOAD');
    assertError(await meta(app, admin, { realtime_watch: true }, 'dg_nowhere'), 404, 'COLLECTION_NOT_FOUND');
    assertError(await meta(app, admin, { realtime_watch: 'yes' }), 400, 'INVALID_PAYLOAD');
    assertError(await meta(app, admin, { realtime_watch: null }), 400, 'INVALID_PAYLOAD');
    assert.is(await watchOf(app, admin), false);
  });

  test('a body refused in part changes nothing', async ({ app, admin }) => {
    const refused = await meta(app, admin, { accountability: 'activity', realtime_watch: true }, KEYLESS);
    assertError(refused, 400, 'INVALID_PAYLOAD');
    const read = await app.request('GET', `/collections/${KEYLESS}`, { token: admin });
    assert.equal((read.body as { meta: unknown }).meta, { accountability: 'all', realtime_watch: false });
  });

  test('with realtime off a collection is not watched, but can be unwatched', async (context) => {
    // The same database and secret: the admin's token holds on this app too.
    const { persistence, admin } = context;
    const off = await startTestApp({
      persistence: borrowed(persistence),
      env: { REALTIME_ENABLED: 'false' },
    });
    try {
      const refused = await meta(off, admin, { realtime_watch: true });
      assertError(refused, 400, 'INVALID_PAYLOAD');
      assert.is(firstError(refused).extensions.reason, 'WATCH_UNAVAILABLE');
      await persistence.watch!.watch(persistence.schema.current().collections.get(WATCHED)!);
      assert.is(await watchOf(off, admin), true);
      const unwatched = await meta(off, admin, { realtime_watch: false });
      assert.is(unwatched.status, 200, unwatched.text);
      assert.is(await watchOf(off, admin), false);
    } finally {
      await off.close();
    }
  });

  test.run();
}

const memory = suite<{ app: TestApp; admin: string }>('meta.realtime_watch in memory');

memory.before.each(async (context) => {
  context.app = await startTestApp();
  context.admin = (await context.app.login(await context.app.seedAdmin())).access_token;
  const created = await context.app.request('POST', '/collections', {
    token: context.admin,
    body: {
      collection: WATCHED,
      fields: [{ field: 'id', type: 'integer', schema: { is_primary_key: true } }],
    },
  });
  assert.is(created.status, 200, created.text);
  assert.equal((created.body as { meta: unknown }).meta, { accountability: 'all', realtime_watch: false });
});
memory.after.each(async ({ app }) => {
  await app.close();
});

memory(
  'there is no SQL to write by hand: never watched, and turning it on or off is refused',
  async ({ app, admin }) => {
    for (const realtime_watch of [true, false]) {
      const refused = await meta(app, admin, { realtime_watch });
      assertError(refused, 400, 'INVALID_PAYLOAD');
      assert.is(firstError(refused).extensions.reason, 'WATCH_UNAVAILABLE');
    }
    assert.is(await watchOf(app, admin), false);
  },
);

memory.run();
