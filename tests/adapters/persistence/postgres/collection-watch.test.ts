import { type Kysely, sql } from 'kysely';
import * as assert from 'uvu/assert';
import type { MikroOrmPersistence } from '../../../../src/adapters/persistence/mikro-orm/open-mikro-orm-persistence.ts';
import { userTablesDatabase } from '../../../../src/adapters/persistence/postgres/postgres-collections.ts';
import type { ItemEvent } from '../../../../src/application/ports/item-events.ts';
import type { CollectionSchema } from '../../../../src/domain/schema/collection-schema.ts';
import type { NewField } from '../../../../src/domain/schema/new-field.ts';
import { databaseBackends } from '../../../support/databases.ts';
import { EVERY_COLUMN_TYPE } from '../../../support/every-column-type.ts';
import { expectDomainError } from '../../../support/expect-domain-error.ts';
import { suitePerBackend } from '../../../support/suite-per-backend.ts';

type Context = { persistence: MikroOrmPersistence; db: Kysely<unknown>; names: string[] };

const CARGO_FIELDS: ReadonlyArray<NewField> = [
  { field: 'id', type: 'integer', isPrimaryKey: true },
  { field: 'name', type: 'string' },
];

let created = 0;

/** Writes made by hand in SQL on a watched collection (docs/api.md §12, "Writes made by hand in SQL"). */
for (const [target, test] of suitePerBackend<Context, MikroOrmPersistence>(
  databaseBackends(),
  (name) => `Watching hand-made writes on ${name}`,
)) {
  test.before.each(async (context) => {
    context.persistence = await target.fresh();
    context.db = userTablesDatabase(context.persistence.orm);
    context.names = [];
  });
  test.after.each(async ({ persistence, names }) => {
    for (const name of names.reverse()) await persistence.schemaEditor.dropCollection(name);
  });
  test.after(() => target.dispose());

  async function collection(
    context: Context,
    fields: ReadonlyArray<NewField> = CARGO_FIELDS,
  ): Promise<CollectionSchema> {
    const name = `watched_${++created}`;
    await context.persistence.schemaEditor.createCollection(name, fields);
    context.names.push(name);
    return context.persistence.schema.current().collections.get(name)!;
  }

  async function watched(context: Context, fields?: ReadonlyArray<NewField>): Promise<CollectionSchema> {
    const cargos = await collection(context, fields);
    await context.persistence.watch!.watch(cargos);
    return cargos;
  }

  const by = (db: Kysely<unknown>, statement: string) => sql.raw(statement).execute(db);

  /** The events after `position`, without their positions. */
  async function after(context: Context, position: string): Promise<Omit<ItemEvent, 'id'>[]> {
    const events = await context.persistence.itemEvents!.since(position, 1000);
    assert.ok(events);
    return events.map(({ id: _id, ...event }) => ({
      ...event,
      before: event.before && { ...event.before },
      after: event.after && { ...event.after },
    }));
  }

  /** The log's own rows after `position`, as text: what a trigger records must be what the writer records. */
  async function logged(context: Context, position: string, collection: string): Promise<string[][]> {
    const { rows } = await sql<{ action: string; key: string; before: string | null; after: string | null }>`
      select action, key::text as key, before::text as before, after::text as after
      from datagate_item_events where id > ${position}::int8 and collection = ${collection} order by id`.execute(
      context.db,
    );
    return rows.map((row) => [row.action, row.key, row.before ?? '-', row.after ?? '-']);
  }

  test('insert, update and delete by hand on a watched collection are events, unwatched ones are not', async (context) => {
    const cargos = await watched(context);
    const other = await collection(context);
    const start = await context.persistence.itemEvents!.latest();
    await by(context.db, `insert into "${other.name}" values (1, 'unseen')`);
    await by(context.db, `insert into "${cargos.name}" values (1, 'ice'), (2, 'fish')`);
    await by(context.db, `update "${cargos.name}" set name = 'cold ice' where id = 1`);
    await by(context.db, `delete from "${cargos.name}" where id = 2`);
    assert.equal(await after(context, start), [
      { collection: cargos.name, action: 'create', key: 1, before: null, after: { id: 1, name: 'ice' } },
      { collection: cargos.name, action: 'create', key: 2, before: null, after: { id: 2, name: 'fish' } },
      {
        collection: cargos.name,
        action: 'update',
        key: 1,
        before: { id: 1, name: 'ice' },
        after: { id: 1, name: 'cold ice' },
      },
      { collection: cargos.name, action: 'delete', key: 2, before: { id: 2, name: 'fish' }, after: null },
    ]);
  });

  test('a hand-made write of every column type records what the writer records, to the byte', async (context) => {
    const api = await collection(context, EVERY_COLUMN_TYPE);
    const hand = await watched(context, EVERY_COLUMN_TYPE);
    const start = await context.persistence.itemEvents!.latest();
    const row = {
      id: 1,
      key: '6f1c1f1e-8d2a-4c59-9a51-3d1f0b8f2a10',
      label: 'ice "cold" \\ ü',
      body: 'line\nbreak',
      small: -7,
      big: '9007199254740993',
      ratio: 1.1,
      price: '12.50',
      flag: true,
      at: '2024-01-02T03:04:05.25',
      instant: '2024-01-02T01:04:05.123+00:00',
      day: '2024-01-02',
      clock: '13:01:02.25',
      doc: '{"b":[1,2.5,null],"a":{"z":"ü"}}',
    };
    const { items } = context.persistence;
    await items.write((writer) => writer.insert(api, [row]));
    await by(context.db, `insert into "${hand.name}" select * from "${api.name}"`);
    await items.write((writer) => writer.update(api, [1], { small: 8, doc: '[]' }));
    await by(context.db, `update "${hand.name}" set small = 8, doc = '[]'`);
    await items.write((writer) => writer.delete(api, [1]));
    await by(context.db, `delete from "${hand.name}"`);
    const byWriter = await logged(context, start, api.name);
    assert.equal(
      byWriter.map(([action]) => action),
      ['create', 'update', 'delete'],
    );
    assert.equal(await logged(context, start, hand.name), byWriter);
    const events = await after(context, start);
    const of = (name: string) =>
      events.filter((event) => event.collection === name).map(({ collection: _c, ...event }) => event);
    assert.equal(of(hand.name), of(api.name));
  });

  test('writes through the API on a watched collection are one event each', async (context) => {
    const cargos = await watched(context);
    const { items } = context.persistence;
    const start = await context.persistence.itemEvents!.latest();
    await items.write((writer) =>
      writer.insert(cargos, [
        { id: 1, name: 'ice' },
        { id: 2, name: 'fish' },
      ]),
    );
    await items.write((writer) => writer.update(cargos, [1, 2], { name: 'cold' }));
    await items.write((writer) => writer.delete(cargos, [1]));
    assert.equal(
      (await after(context, start)).map((event) => [event.action, event.key]),
      [
        ['create', 1],
        ['create', 2],
        ['update', 1],
        ['update', 2],
        ['delete', 1],
      ],
    );
  });

  test("a foreign key's cascade on a watched collection is an event", async (context) => {
    const ships = await collection(context);
    const cargos = await watched(context, [...CARGO_FIELDS, { field: 'ship', type: 'integer' }]);
    await context.persistence.schemaEditor.createRelation({
      collection: cargos.name,
      field: 'ship',
      relatedCollection: ships.name,
      onDelete: 'cascade',
    });
    // The relation changed no column: the trigger is still current.
    await by(context.db, `insert into "${ships.name}" values (7, 'Ever Given')`);
    await by(context.db, `insert into "${cargos.name}" values (1, 'ice', 7)`);
    const start = await context.persistence.itemEvents!.latest();
    await context.persistence.items.write((writer) => writer.delete(ships, [7]));
    assert.equal(
      (await after(context, start)).map((event) => [event.collection, event.action, event.key]),
      [
        [ships.name, 'delete', 7],
        [cargos.name, 'delete', 1],
      ],
    );
  });

  test('a changed key is the deletion of the old one and the creation of the new; a truncate deletes every row', async (context) => {
    const cargos = await watched(context);
    await by(context.db, `insert into "${cargos.name}" values (1, 'ice'), (2, 'fish')`);
    const start = await context.persistence.itemEvents!.latest();
    await by(context.db, `update "${cargos.name}" set id = 5 where id = 1`);
    await by(context.db, `truncate "${cargos.name}"`);
    assert.equal(
      (await after(context, start)).map((event) => [event.action, event.key]),
      [
        ['delete', 1],
        ['create', 5],
        ['delete', 2],
        ['delete', 5],
      ],
    );
  });

  test('a column changed by hand refuses writes until watched again; one added through the API renews the trigger', async (context) => {
    const cargos = await watched(context);
    const watch = context.persistence.watch!;
    await by(context.db, `alter table "${cargos.name}" add column extra integer`);
    assert.equal(await watch.watched(), [{ collection: cargos.name, current: false }]);
    const refused = await by(context.db, `insert into "${cargos.name}" values (1, 'ice', 3)`).then(
      () => 'written',
      (error: Error) => error.message,
    );
    assert.match(refused, /changed after it was watched/);
    await expectDomainError(
      context.persistence.items.write((writer) => writer.insert(cargos, [{ id: 2, name: 'fish' }])),
      'SERVICE_UNAVAILABLE',
    );
    const refreshed = (await context.persistence.schema.refresh()).collections.get(cargos.name)!;
    await watch.watch(refreshed);
    assert.equal(await watch.watched(), [{ collection: cargos.name, current: true }]);
    const start = await context.persistence.itemEvents!.latest();
    await by(context.db, `insert into "${cargos.name}" values (1, 'ice', 3)`);
    await context.persistence.schemaEditor.addField(cargos.name, { field: 'more', type: 'string' });
    assert.equal(await watch.watched(), [{ collection: cargos.name, current: true }]);
    await by(context.db, `update "${cargos.name}" set more = 'yes'`);
    assert.equal(
      (await after(context, start)).map((event) => event.after),
      [
        { id: 1, name: 'ice', extra: 3 },
        { id: 1, name: 'ice', extra: 3, more: 'yes' },
      ],
    );
  });

  test('unwatch removes the triggers and the function: hand-made writes are no longer events', async (context) => {
    const cargos = await watched(context);
    const watch = context.persistence.watch!;
    assert.is(await watch.unwatch(cargos.name), true);
    assert.is(await watch.unwatch(cargos.name), false);
    assert.equal(await watch.watched(), []);
    const { rows } = await sql<{ count: number }>`
      select (select count(*) from pg_trigger where tgrelid = ${cargos.name}::regclass)::int
        + (select count(*) from pg_proc where proname like 'datagate_item_events_%')::int as count`.execute(
      context.db,
    );
    assert.is(rows[0]!.count, 0);
    const start = await context.persistence.itemEvents!.latest();
    await by(context.db, `insert into "${cargos.name}" values (1, 'unseen')`);
    await context.persistence.items.write((writer) => writer.insert(cargos, [{ id: 2, name: 'seen' }]));
    assert.equal(
      (await after(context, start)).map((event) => event.key),
      [2],
    );
  });

  test('a subscriber receives the hand-made writes of a watched collection', async (context) => {
    const cargos = await watched(context);
    const other = await collection(context);
    const received: ItemEvent[] = [];
    let arrived!: () => void;
    const arrival = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    const unsubscribe = context.persistence.itemEvents!.subscribe({
      events: (batch) => {
        received.push(...batch);
        if (received.some((event) => event.collection === cargos.name)) arrived();
      },
      lost: () => assert.unreachable('nothing is lost'),
    });
    // The subscription starts from the latest position once it has read it.
    await new Promise((resolve) => setTimeout(resolve, 300));
    await by(context.db, `insert into "${other.name}" values (1, 'unwatched')`);
    await by(context.db, `insert into "${cargos.name}" values (1, 'watched')`);
    await arrival;
    unsubscribe();
    assert.equal(
      received.map((event) => [event.collection, event.action, event.key]),
      [[cargos.name, 'create', 1]],
    );
  });

  test.run();
}
