import { tmpdir } from 'node:os';
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
