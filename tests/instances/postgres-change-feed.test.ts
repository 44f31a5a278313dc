import * as assert from 'uvu/assert';
import { PostgresChangeFeed } from '../../src/adapters/persistence/mikro-orm/postgres-change-feed.ts';
import type { Change } from '../../src/application/ports/change-feed.ts';
import { eventually } from '../faults/http.ts';
import { createThrowawayDatabase, type ThrowawayDatabase } from '../faults/throwaway-database.ts';
import { postgresSkip } from '../support/postgres-server.ts';
import { skippableSuite } from '../support/skippable-suite.ts';

/**
 * The feed alone, on a database without datagate's migrations, so without the event trigger: what it
 * hears, what it cannot read, and the schema fingerprint that stands in for the trigger.
 */
type Context = {
  database: ThrowawayDatabase;
  feed: PostgresChangeFeed;
  heard: Change[];
  lost: number;
};

const feed = skippableSuite<Context>('PostgresChangeFeed on a server', postgresSkip);

feed.before(async (context) => {
  context.database = await createThrowawayDatabase('feed');
  context.heard = [];
  context.lost = 0;
  context.feed = new PostgresChangeFeed({
    url: context.database.url(),
    connectMs: 2000,
    schema: 'public',
    heartbeatMs: 100,
    notify: async (channel, payload) => {
      await context.database.query('select pg_notify($1, $2)', [channel, payload]);
    },
  });
  context.feed.subscribe({
    changed: (change) => context.heard.push(change),
    lost: () => context.lost++,
  });
  await eventually(async () => context.feed.live, 5000);
});

feed.after(async ({ feed, database }) => {
  await feed?.close();
  await database?.drop();
});

feed('hears what is published, once it is committed, and reports its mode', async (context) => {
  assert.equal(context.feed.status(), { listener: 'ok', schema: 'fingerprint' });
  await context.feed.publish({ kind: 'user', id: 'u1' });
  await eventually(async () => context.heard.some((change) => change.kind === 'user'), 1000);
  assert.equal(context.heard.at(-1), { kind: 'user', id: 'u1' });
});

feed('a payload it cannot read drops everything rather than nothing', async (context) => {
  const before = context.lost;
  await context.database.query(`select pg_notify('datagate_changes', '{"kind":"from-the-future"}')`);
  await eventually(async () => context.lost > before, 1000);
});

feed('without an event trigger, a table created by hand is noticed by the fingerprint', async (context) => {
  context.heard.length = 0;
  await context.database.query('create table "by_hand" ("id" integer)');
  await eventually(async () => context.heard.some((change) => change.kind === 'schema'), 3000);
});

feed('without an event trigger, a foreign key added or changed by hand is noticed too', async (context) => {
  await context.database.query('create table "referred" ("id" integer primary key)');
  await context.database.query('create table "referring" ("id" integer, "referred" integer)');
  await eventually(async () => context.heard.some((change) => change.kind === 'schema'), 3000);
  for (const change of [
    'alter table "referring" add constraint "referring_referred_foreign" foreign key ("referred") references "referred" ("id")',
    `comment on constraint "referring_referred_foreign" on "referring" is '{"one_field":"referrers"}'`,
  ]) {
    context.heard.length = 0;
    await context.database.query(change);
    await eventually(async () => context.heard.some((heard) => heard.kind === 'schema'), 3000);
  }
});

feed('a dropped listening connection is reported, dropped caches, and comes back', async (context) => {
  const before = context.lost;
  await context.database.query(
    `select pg_terminate_backend(pid) from pg_stat_activity
     where application_name = 'datagate listener' and datname = current_database()`,
  );
  // Once when the connection drops, once more when it listens again.
  await eventually(async () => context.lost >= before + 2 && context.feed.live, 5000);
  await context.feed.publish({ kind: 'session', id: 's1' });
  await eventually(async () => context.heard.some((change) => change.kind === 'session'), 1000);
});

feed.run();
