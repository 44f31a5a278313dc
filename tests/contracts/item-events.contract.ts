import * as assert from 'uvu/assert';
import type { Persistence } from '../../src/adapters/persistence/persistence.ts';
import type { ItemEvent, ItemEventFeed } from '../../src/application/ports/item-events.ts';
import type { CollectionSchema } from '../../src/domain/schema/collection-schema.ts';
import type { NewField } from '../../src/domain/schema/new-field.ts';
import type { PersistenceTarget } from '../support/databases.ts';
import { skippableSuite } from '../support/skippable-suite.ts';

type Context = { persistence: Persistence; feed: ItemEventFeed; cargos: CollectionSchema };

const CARGO_FIELDS: ReadonlyArray<NewField> = [
  { field: 'id', type: 'integer', isPrimaryKey: true },
  { field: 'name', type: 'string', isNullable: false },
  { field: 'temperature', type: 'integer' },
];

let collections = 0;

/** The items' change log (docs/api.md §12) as every backend records it from its item writer. */
export function itemEventsContract(target: PersistenceTarget) {
  const test = skippableSuite<Context>(`ItemEventFeed on ${target.name}`, target.skip);
  test.before.each(async (context) => {
    context.persistence = await target.fresh();
    const feed = context.persistence.itemEvents;
    if (!feed) throw new Error(`${target.name} records no change log`);
    context.feed = feed;
    const name = `cargos_events_${++collections}`;
    await context.persistence.schemaEditor.createCollection(name, CARGO_FIELDS);
    context.cargos = context.persistence.schema.current().collections.get(name)!;
  });
  test.after.each(async ({ persistence, cargos }) => {
    await persistence.schemaEditor.dropCollection(cargos.name);
  });
  test.after(() => target.dispose());

  /** The events after `position`, as plain objects without their positions. */
  async function after(feed: ItemEventFeed, position: string): Promise<Omit<ItemEvent, 'id'>[]> {
    const events = await feed.since(position, 1000);
    assert.ok(events, `position ${position} is covered`);
    return events.map(({ id: _id, ...event }) => ({
      ...event,
      before: event.before && { ...event.before },
      after: event.after && { ...event.after },
    }));
  }

  async function refused(write: Promise<unknown>): Promise<void> {
    const outcome = await write.then(
      () => 'committed',
      () => 'refused',
    );
    assert.is(outcome, 'refused');
  }

  test('create, update and delete, of one row and of many, are events with their images', async ({
    persistence,
    feed,
    cargos,
  }) => {
    const start = await feed.latest();
    const collection = cargos.name;
    await persistence.items.write((writer) =>
      writer.insert(cargos, [
        { id: 1, name: 'ice', temperature: -20 },
        { id: 2, name: 'fish', temperature: 2 },
      ]),
    );
    await persistence.items.write((writer) => writer.update(cargos, [1, 2], { temperature: 4 }));
    await persistence.items.write(async (writer) => {
      const cold = await writer.lockMatching(cargos, {
        kind: 'condition',
        field: 'name',
        operator: '_eq',
        value: 'ice',
      });
      await writer.delete(
        cargos,
        cold.map((row) => row.id!),
      );
    });
    const ice = { id: 1, name: 'ice', temperature: -20 };
    const fish = { id: 2, name: 'fish', temperature: 2 };
    assert.equal(await after(feed, start), [
      { collection, action: 'create', key: 1, before: null, after: ice },
      { collection, action: 'create', key: 2, before: null, after: fish },
      { collection, action: 'update', key: 1, before: ice, after: { ...ice, temperature: 4 } },
      { collection, action: 'update', key: 2, before: fish, after: { ...fish, temperature: 4 } },
      { collection, action: 'delete', key: 1, before: { ...ice, temperature: 4 }, after: null },
    ]);
  });

  test('a rolled-back write is no event', async ({ persistence, feed, cargos }) => {
    const start = await feed.latest();
    await refused(
      persistence.items.write(async (writer) => {
        await writer.insert(cargos, [{ id: 1, name: 'ice' }]);
        throw new Error('changed my mind');
      }),
    );
    await refused(
      persistence.items.write((writer) =>
        writer.insert(cargos, [
          { id: 2, name: 'fish' },
          { id: 2, name: 'twice' },
        ]),
      ),
    );
    assert.equal(await feed.since(start, 10), []);
    assert.is(await feed.latest(), start);
  });

  test('since resumes after a position without a gap or a repeat, in batches of at most limit', async ({
    persistence,
    feed,
    cargos,
  }) => {
    const start = await feed.latest();
    for (let id = 1; id <= 5; id++) {
      await persistence.items.write((writer) => writer.insert(cargos, [{ id, name: `n${id}` }]));
    }
    const seen: ItemEvent[] = [];
    let position = start;
    for (;;) {
      const batch = await feed.since(position, 2);
      assert.ok(batch);
      assert.ok(batch.length <= 2);
      if (batch.length === 0) break;
      seen.push(...batch);
      position = batch.at(-1)!.id;
    }
    assert.equal(
      seen.map((event) => event.key),
      [1, 2, 3, 4, 5],
    );
    assert.is(position, await feed.latest());
    const ids = seen.map((event) => BigInt(event.id));
    assert.ok(ids.every((id, index) => index === 0 || id > ids[index - 1]!));
  });

  test('a position never given out is not covered', async ({ feed }) => {
    const latest = BigInt(await feed.latest());
    assert.is(await feed.since(String(latest + 1000n), 10), null);
    assert.is(await feed.since('not a position', 10), null);
  });

  test('subscribers receive the events committed after they subscribed, in order', async ({
    persistence,
    feed,
    cargos,
  }) => {
    await persistence.items.write((writer) => writer.insert(cargos, [{ id: 1, name: 'before' }]));
    const received: ItemEvent[] = [];
    const unsubscribe = feed.subscribe({
      events: (batch) => received.push(...batch),
      lost: () => assert.unreachable('nothing is lost'),
    });
    try {
      // What "after subscribe()" means is fixed by the feed's first read, which nothing here can wait for: a
      // write racing it may fall on either side. Markers are written until one is heard, and only what is
      // committed after that is asserted.
      for (let marker = 100; received.length === 0; marker++) {
        await persistence.items.write((writer) => writer.insert(cargos, [{ id: marker, name: 'marker' }]));
        await heard(() => received.length > 0, 500).catch(() => undefined);
      }
      await persistence.items.write((writer) => writer.insert(cargos, [{ id: 2, name: 'after' }]));
      await persistence.items.write((writer) => writer.delete(cargos, [2]));
      const ofTwo = () => received.filter((event) => event.key === 2);
      await heard(() => ofTwo().length >= 2, 10_000);
      assert.equal(
        ofTwo().map((event) => [event.action, event.key]),
        [
          ['create', 2],
          ['delete', 2],
        ],
      );
      assert.ok(!received.some((event) => event.key === 1), 'nothing committed before subscribing');
    } finally {
      unsubscribe();
    }
  });

  return test;
}

/** Waits until `condition` holds, failing after `timeoutMs` rather than hanging the suite. */
async function heard(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`not heard within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
