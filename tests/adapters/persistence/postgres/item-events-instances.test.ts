import { tmpdir } from 'node:os';
import { sql } from 'kysely';
import * as assert from 'uvu/assert';
import {
  type MikroOrmPersistence,
  openMikroOrmPersistence,
} from '../../../../src/adapters/persistence/mikro-orm/open-mikro-orm-persistence.ts';
import { userTablesDatabase } from '../../../../src/adapters/persistence/postgres/postgres-collections.ts';
import { PostgresItemEventFeed } from '../../../../src/adapters/persistence/postgres/postgres-item-event-feed.ts';
import type { ItemEvent } from '../../../../src/application/ports/item-events.ts';
import type { CollectionSchema } from '../../../../src/domain/schema/collection-schema.ts';
import { administer, postgresSkip, testDatabaseUrl } from '../../../support/postgres-server.ts';
import { skippableSuite } from '../../../support/skippable-suite.ts';

type Context = { a: MikroOrmPersistence; b: MikroOrmPersistence; cargos: CollectionSchema };

const database = `datagate_events_${process.pid}_${Date.now().toString(36)}`;

/** Two instances on one PostgreSQL database: each an ORM with its own pool, as two servers would have. */
const test = skippableSuite<Context>('The change log across instances on PostgreSQL', postgresSkip);

test.before(async (context) => {
  await administer(`create database "${database}"`);
  const open = () => openMikroOrmPersistence({ url: testDatabaseUrl(database), dataDir: tmpdir() });
  context.a = await open();
  await context.a.migrate();
  context.b = await open();
  await context.a.schemaEditor.createCollection('cargos', [
    { field: 'id', type: 'integer', isPrimaryKey: true },
    { field: 'name', type: 'string' },
  ]);
  context.cargos = context.a.schema.current().collections.get('cargos')!;
  await context.b.schema.refresh();
});

test.after(async ({ a, b }) => {
  await a?.close();
  await b?.close();
  await administer(`drop database if exists "${database}" with (force)`);
});

test('a write through instance A reaches a listener of instance B', async ({ a, b, cargos }) => {
  const received: ItemEvent[] = [];
  let arrived!: () => void;
  const arrival = new Promise<void>((resolve) => {
    arrived = resolve;
  });
  const unsubscribe = b.itemEvents!.subscribe({
    events: (batch) => {
      received.push(...batch);
      if (received.some((event) => event.key === 1)) arrived();
    },
    lost: () => assert.unreachable('nothing is lost'),
  });
  // The listener starts from the latest position once it has read it: wait for that first read.
  await new Promise((resolve) => setTimeout(resolve, 300));
  await a.items.write((writer) => writer.insert(cargos, [{ id: 1, name: 'ice' }]));
  await arrival;
  unsubscribe();
  assert.equal(
    received.map((event) => [event.collection, event.action, event.key, { ...event.after }]),
    [['cargos', 'create', 1, { id: 1, name: 'ice' }]],
  );
});

/**
 * An instance whose safety poll would take ten minutes: whatever reaches its subscribers in the meantime
 * came by the wake-up channel, or by the quick polling of a lost channel.
 */
async function withWakeUpsOnly<T>(work: (c: MikroOrmPersistence) => Promise<T>): Promise<T> {
  const c = await openMikroOrmPersistence({
    url: testDatabaseUrl(database),
    dataDir: tmpdir(),
    itemEvents: { replayWindowMs: 60_000, pollMs: 600_000 },
  });
  try {
    await c.schema.refresh();
    return await work(c);
  } finally {
    await c.close();
  }
}

/** The first event of `key` that `feed` delivers, or a failure after `withinMs`. */
function eventOf(c: MikroOrmPersistence, key: number, withinMs = 20_000) {
  let unsubscribe = () => {};
  const event = new Promise<ItemEvent>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no event for ${key} within ${withinMs} ms`)), withinMs);
    timer.unref();
    unsubscribe = c.itemEvents!.subscribe({
      events: (batch) => {
        const found = batch.find((candidate) => candidate.key === key);
        if (!found) return;
        clearTimeout(timer);
        resolve(found);
      },
      lost: () => reject(new Error('lost')),
    });
  });
  const settled = event.finally(() => unsubscribe());
  // A case that fails before awaiting it must not leave a rejection nobody handles.
  settled.catch(() => {});
  return { event: settled };
}

/** The wake-up connections that listen on the database (an instance connects its own on a first subscription). */
async function listening(a: MikroOrmPersistence): Promise<number[]> {
  const { rows } = await sql<{ pid: number }>`
    select pid from pg_stat_activity where datname = ${database}
      and application_name = 'datagate item events' and state = 'idle'`.execute(userTablesDatabase(a.orm));
  return rows.map((row) => row.pid);
}

async function untilListening(a: MikroOrmPersistence, count: number): Promise<number[]> {
  for (;;) {
    const pids = await listening(a);
    if (pids.length >= count) return pids;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

test('a write through A wakes C at once, without waiting for its poll', async ({ a, cargos }) => {
  const others = (await listening(a)).length;
  await withWakeUpsOnly(async (c) => {
    const { event } = eventOf(c, 30);
    await untilListening(a, others + 1);
    await new Promise((resolve) => setTimeout(resolve, 100));
    await a.items.write((writer) => writer.insert(cargos, [{ id: 30, name: 'woken' }]));
    assert.equal({ ...(await event).after }, { id: 30, name: 'woken' });
  });
});

test('a lost wake-up connection is read around: the log is polled until it listens again', async ({
  a,
  cargos,
}) => {
  const others = (await listening(a)).length;
  await withWakeUpsOnly(async (c) => {
    const { event: first } = eventOf(c, 31);
    const pids = await untilListening(a, others + 1);
    await new Promise((resolve) => setTimeout(resolve, 100));
    await sql`select pg_terminate_backend(pid) from unnest(${pids}::int[]) as pid`.execute(
      userTablesDatabase(a.orm),
    );
    await a.items.write((writer) => writer.insert(cargos, [{ id: 31, name: 'while lost' }]));
    assert.is((await first).key, 31);
    const { event: second } = eventOf(c, 32);
    await untilListening(a, others + 1);
    await new Promise((resolve) => setTimeout(resolve, 100));
    await a.items.write((writer) => writer.insert(cargos, [{ id: 32, name: 'listening again' }]));
    assert.is((await second).key, 32);
  });
});

test('an event whose transaction commits later is not skipped by a reader that moved on', async ({
  a,
  b,
  cargos,
}) => {
  const start = await b.itemEvents!.latest();
  let release!: () => void;
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  let firstWrote!: () => void;
  const wrote = new Promise<void>((resolve) => {
    firstWrote = resolve;
  });
  // A's transaction records its event first, then stays open; B writes meanwhile.
  const first = a.items.write(async (writer) => {
    await writer.insert(cargos, [{ id: 10, name: 'first' }]);
    firstWrote();
    await held;
  });
  await wrote;
  const second = b.items.write((writer) => writer.insert(cargos, [{ id: 11, name: 'second' }]));
  await new Promise((resolve) => setTimeout(resolve, 200));
  const during = await b.itemEvents!.since(start, 100);
  release();
  await Promise.all([first, second]);
  const after = await b.itemEvents!.since(start, 100);
  // Whatever a reader saw while A was open, resuming from its last position misses nothing.
  const resumedFrom = during && during.length > 0 ? during.at(-1)!.id : start;
  const rest = await b.itemEvents!.since(resumedFrom, 100);
  assert.equal([...(during ?? []), ...(rest ?? [])].map((event) => event.key).sort(), [10, 11]);
  assert.equal(
    after?.map((event) => event.key),
    [10, 11],
  );
});

test('pruned events are no longer covered; the newest is kept, so the latest position stays covered', async ({
  a,
  cargos,
}) => {
  const start = await a.itemEvents!.latest();
  await a.items.write((writer) => writer.insert(cargos, [{ id: 20, name: 'old' }]));
  const feed = new PostgresItemEventFeed(userTablesDatabase(a.orm), a.schema, { replayWindowMs: 1 });
  try {
    await new Promise((resolve) => setTimeout(resolve, 20));
    await feed.prune();
    assert.is(await feed.since(start, 10), null);
    const latest = await feed.latest();
    assert.equal(await feed.since(latest, 10), []);
    await a.items.write((writer) => writer.insert(cargos, [{ id: 21, name: 'new' }]));
    assert.equal(
      (await feed.since(latest, 10))?.map((event) => event.key),
      [21],
    );
  } finally {
    feed.close();
  }
});

test.run();
