import { sql } from 'kysely';
import * as assert from 'uvu/assert';
import type { MikroOrmPersistence } from '../../../../src/adapters/persistence/mikro-orm/open-mikro-orm-persistence.ts';
import { userTablesDatabase } from '../../../../src/adapters/persistence/postgres/postgres-collections.ts';
import { PostgresLargeObjectStorage } from '../../../../src/adapters/persistence/postgres/postgres-large-object-storage.ts';
import { databaseBackends } from '../../../support/databases.ts';
import { generatedBytes, readAll } from '../../../support/generated-bytes.ts';
import { suitePerBackend } from '../../../support/suite-per-backend.ts';

type Context = { persistence: MikroOrmPersistence; store: PostgresLargeObjectStorage };

/** Large objects no key points at: what a leak of the store would leave behind. */
async function unreferenced(persistence: MikroOrmPersistence): Promise<number> {
  const found = await sql<{ count: string }>`select count(*) as "count" from pg_largeobject_metadata as m
    where not exists (select from datagate_storage_objects as o where o."oid" = m."oid")`.execute(
    userTablesDatabase(persistence.orm),
  );
  return Number(found.rows[0]!.count);
}

async function* failing(): AsyncIterable<Uint8Array> {
  yield* generatedBytes(3 * 1024 * 1024, 100_000);
  throw new Error('aborted');
}

for (const [target, test] of suitePerBackend<Context, MikroOrmPersistence>(
  databaseBackends(),
  (backend) => `large objects on ${backend}`,
)) {
  test.before.each(async (context) => {
    context.persistence = await target.fresh();
    context.store = new PostgresLargeObjectStorage(userTablesDatabase(context.persistence.orm));
    for await (const object of context.store.list('')) await context.store.delete(object.key);
  });
  test.after(() => target.dispose());

  test('no large object outlives its key: failed writes, replaces, moves onto a key, deletes', async ({
    persistence,
    store,
  }) => {
    await store.write('leak/a', generatedBytes(10, 10));
    await store.write('leak/a', generatedBytes(2_000_000, 65_536));
    await store.write('leak/b', generatedBytes(5, 5));
    await store.move('leak/a', 'leak/b');
    await store.write('leak/c', failing()).catch(() => {});
    await store.write('leak/b', failing()).catch(() => {});
    await store.move('leak/missing', 'leak/b').catch(() => {});
    assert.is(await unreferenced(persistence), 0);
    await store.delete('leak/b');
    assert.is(await unreferenced(persistence), 0);
  });

  test('concurrent writes to one key leave one object, the last to commit, and no orphan', async ({
    persistence,
    store,
  }) => {
    const sizes = [300_000, 1_500_000, 10, 0, 700_001];
    await Promise.all(sizes.map((size, seed) => store.write('race/key', generatedBytes(size, 65_536, seed))));
    const stat = await store.stat('race/key');
    assert.ok(stat && sizes.includes(stat.size));
    assert.is((await readAll((await store.read('race/key'))!)).byteLength, stat.size);
    assert.is(await unreferenced(persistence), 0);
  });
  test('lists the large objects no key points at, with their sizes, a page at a time', async ({
    persistence,
  }) => {
    const db = userTablesDatabase(persistence.orm);
    const store = new PostgresLargeObjectStorage(db, { listPageSize: 2 });
    await store.write('kept/a', generatedBytes(10, 10));
    const made = await sql<{
      oid: number | string;
    }>`select lo_from_bytea(0, ${Buffer.alloc(300_000)}) as "oid"
      union all select lo_from_bytea(0, ${Buffer.alloc(7)})
      union all select lo_from_bytea(0, ${Buffer.alloc(0)})`.execute(db);
    const found = [];
    for await (const bytes of store.unreferenced()) found.push(bytes);
    assert.equal(
      found,
      made.rows.map((row, index) => ({ name: `large object ${row.oid}`, size: [300_000, 7, 0][index] })),
    );
    for (const row of made.rows) await sql`select lo_unlink(${row.oid}::oid)`.execute(db);
    assert.is(await unreferenced(persistence), 0);
  });
  test.run();
}
