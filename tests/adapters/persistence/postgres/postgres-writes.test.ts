import { type Kysely, sql } from 'kysely';
import * as assert from 'uvu/assert';
import type { MikroOrmPersistence } from '../../../../src/adapters/persistence/mikro-orm/open-mikro-orm-persistence.ts';
import { userTablesDatabase } from '../../../../src/adapters/persistence/postgres/postgres-collections.ts';
import { PostgresItemStore } from '../../../../src/adapters/persistence/postgres/postgres-item-store.ts';
import { PostgresSchemaCatalog } from '../../../../src/adapters/persistence/postgres/postgres-schema-catalog.ts';
import { type ItemWriter, StaleSchemaError } from '../../../../src/application/ports/item-store.ts';
import { DomainError, type ErrorCode } from '../../../../src/domain/errors.ts';
import type { CollectionSchema } from '../../../../src/domain/schema/collection-schema.ts';
import { emptySchema, TEST_SCHEMA } from '../../../support/collections.ts';
import { databaseBackends } from '../../../support/databases.ts';
import { suitePerBackend } from '../../../support/suite-per-backend.ts';

type Context = { db: Kysely<unknown>; catalog: PostgresSchemaCatalog; store: PostgresItemStore };

/**
 * What only a real database has on the write path: tables made outside the API (checks, foreign keys,
 * unique indexes, generated columns, types the API cannot create), its own error reports, and the
 * bind-parameter limit.
 */
for (const [target, test] of suitePerBackend<Context, MikroOrmPersistence>(
  databaseBackends(),
  (backend) => `PostgreSQL writes on ${backend}`,
)) {
  test.before.each(async (context) => {
    context.db = userTablesDatabase((await target.fresh()).orm);
    await emptySchema(context.db, TEST_SCHEMA);
    context.catalog = new PostgresSchemaCatalog(context.db, TEST_SCHEMA);
    context.store = new PostgresItemStore(context.db, TEST_SCHEMA);
  });
  test.after(() => target.dispose());

  const inSchema = (name: string) => sql.id(TEST_SCHEMA, name);

  async function collection(catalog: PostgresSchemaCatalog, name: string): Promise<CollectionSchema> {
    const found = (await catalog.refresh()).collections.get(name);
    if (!found) throw new Error(`no collection ${name}`);
    return found;
  }

  async function refusal(
    store: PostgresItemStore,
    work: (writer: ItemWriter) => Promise<unknown>,
    code: ErrorCode,
    field: string | undefined,
  ): Promise<DomainError> {
    try {
      await store.write(work);
    } catch (error) {
      assert.instance(error, DomainError, String(error));
      const refused = error as DomainError;
      assert.is(refused.code, code, refused.message);
      assert.is(refused.extensions.field, field, refused.message);
      return refused;
    }
    return assert.unreachable(`expected ${code}, but the write succeeded`) as never;
  }

  const countOf = async (db: Kysely<unknown>, table: string) =>
    Number((await sql<{ n: string }>`select count(*) as n from ${inSchema(table)}`.execute(db)).rows[0]!.n);

  test('check constraints: one column names it, several name none', async ({ db, catalog, store }) => {
    await sql`create table ${inSchema('stock')} (id int primary key, qty int check (qty >= 0),
      lo int, hi int, constraint ${sql.id('lo "≤" hi')} check (lo <= hi))`.execute(db);
    const stock = await collection(catalog, 'stock');
    await refusal(store, (w) => w.insert(stock, [{ id: 1, qty: -1 }]), 'FAILED_VALIDATION', 'qty');
    const both = await refusal(
      store,
      (w) => w.insert(stock, [{ id: 1, lo: 2, hi: 1 }]),
      'FAILED_VALIDATION',
      undefined,
    );
    assert.not.match(both.message, /≤|lo|hi/, 'no constraint name in the message');
    assert.is(await countOf(db, 'stock'), 0);
  });

  test("a domain's check names the column of that domain the write gave a value, when only one", async ({
    db,
    catalog,
    store,
  }) => {
    await sql`create domain ${inSchema('positive')} as int check (value > 0)`.execute(db);
    await sql`create table ${inSchema('parcels')} (id int primary key, weight ${inSchema('positive')},
      height ${inSchema('positive')}, other int)`.execute(db);
    const parcels = await collection(catalog, 'parcels');
    assert.equal(
      parcels.fields.map((field) => field.type),
      ['integer', 'integer', 'integer', 'integer'],
      'every column is one the API writes',
    );
    await refusal(store, (w) => w.insert(parcels, [{ id: 1, weight: 0 }]), 'FAILED_VALIDATION', 'weight');
    await store.write((w) => w.insert(parcels, [{ id: 1, weight: 1 }]));
    await refusal(
      store,
      (w) => w.update(parcels, [1], { height: -1, other: 2 }),
      'FAILED_VALIDATION',
      'height',
    );
    // Two written columns of the domain: either may have failed, so neither is named.
    await refusal(
      store,
      (w) => w.insert(parcels, [{ id: 2, weight: 1, height: 0 }]),
      'FAILED_VALIDATION',
      undefined,
    );
    assert.is(await countOf(db, 'parcels'), 1);
  });

  test('foreign keys: a dangling reference names its column; deleting a referenced row names none', async ({
    db,
    catalog,
    store,
  }) => {
    await sql`create table ${inSchema('parents')} (id int primary key)`.execute(db);
    await sql`create table ${inSchema('children')} (id int primary key,
      parent_id int references ${inSchema('parents')} (id))`.execute(db);
    await sql`insert into ${inSchema('parents')} values (1)`.execute(db);
    await sql`insert into ${inSchema('children')} values (1, 1)`.execute(db);
    const parents = await collection(catalog, 'parents');
    const children = await collection(catalog, 'children');
    await refusal(
      store,
      (w) => w.insert(children, [{ id: 2, parent_id: 99 }]),
      'FAILED_VALIDATION',
      'parent_id',
    );
    await refusal(store, (w) => w.update(children, [1], { parent_id: 99 }), 'FAILED_VALIDATION', 'parent_id');
    const referenced = await refusal(store, (w) => w.delete(parents, [1]), 'FAILED_VALIDATION', undefined);
    assert.match(referenced.message, /refer/);
    await refusal(store, (w) => w.update(parents, [1], { id: 5 }), 'FAILED_VALIDATION', undefined);
    assert.is(await countOf(db, 'parents'), 1);
  });

  test('unique indexes and constraints name their first column, however quoted', async ({
    db,
    catalog,
    store,
  }) => {
    await sql`create table ${inSchema('we.ird "table"')} (id int primary key, ${sql.id('co"de')} text,
      a int, b int, email text, constraint ${sql.id('pair "key"')} unique (b, a))`.execute(db);
    await sql`create unique index ${sql.id('co"de idx')} on ${inSchema('we.ird "table"')} (${sql.id('co"de')})`.execute(
      db,
    );
    await sql`create unique index on ${inSchema('we.ird "table"')} (lower(email))`.execute(db);
    const table = await collection(catalog, 'we.ird "table"');
    await store.write((w) => w.insert(table, [{ id: 1, 'co"de': 'x', a: 1, b: 2, email: 'A@x' }]));
    await refusal(store, (w) => w.insert(table, [{ id: 2, 'co"de': 'x' }]), 'RECORD_NOT_UNIQUE', 'co"de');
    await refusal(store, (w) => w.insert(table, [{ id: 2, a: 1, b: 2 }]), 'RECORD_NOT_UNIQUE', 'b');
    await refusal(store, (w) => w.insert(table, [{ id: 1 }]), 'RECORD_NOT_UNIQUE', 'id');
    // An expression index has no column to name: the primary key stands in.
    await refusal(store, (w) => w.insert(table, [{ id: 2, email: 'a@X' }]), 'RECORD_NOT_UNIQUE', 'id');
    assert.is(await countOf(db, 'we.ird "table"'), 1);
  });

  test('a deferred unique constraint fails at commit and still names its column', async ({
    db,
    catalog,
    store,
  }) => {
    await sql`create table ${inSchema('late')} (id int primary key,
      code text unique deferrable initially deferred)`.execute(db);
    const late = await collection(catalog, 'late');
    await refusal(
      store,
      async (w) => {
        await w.insert(late, [{ id: 1, code: 'x' }]);
        await w.insert(late, [{ id: 2, code: 'x' }]);
      },
      'RECORD_NOT_UNIQUE',
      'code',
    );
    assert.is(await countOf(db, 'late'), 0);
  });

  test('values that do not fit their column are FAILED_VALIDATION, too long ones naming the field', async ({
    db,
    catalog,
    store,
  }) => {
    await sql`create table ${inSchema('fits')} (id int primary key, tiny smallint, money numeric(5, 2),
      code char(3), name varchar(4), stamp timestamp)`.execute(db);
    const fits = await collection(catalog, 'fits');
    await refusal(store, (w) => w.insert(fits, [{ id: 1, tiny: 100000 }]), 'FAILED_VALIDATION', undefined);
    await refusal(store, (w) => w.insert(fits, [{ id: 1, money: '1000' }]), 'FAILED_VALIDATION', undefined);
    await refusal(store, (w) => w.insert(fits, [{ id: 1, code: 'abcd' }]), 'FAILED_VALIDATION', 'code');
    await refusal(
      store,
      (w) =>
        w.insert(fits, [
          { id: 1, name: 'ok' },
          { id: 2, name: 'Ünïcø' },
        ]),
      'FAILED_VALIDATION',
      'name',
    );
    await refusal(
      store,
      (w) => w.insert(fits, [{ id: 1, stamp: 'not a time' }]),
      'FAILED_VALIDATION',
      undefined,
    );
    // Four characters fit varchar(4), however many bytes they take.
    await store.write((w) => w.insert(fits, [{ id: 1, name: 'Ünïc', money: '999.99', code: 'ab' }]));
    const row = (await store.write((w) => w.lockRows(fits, [1]))).get('1')!;
    // char(n) pads, as PostgreSQL stores it; numeric(5,2) reads without its trailing zeros.
    assert.equal([row.name, row.money, row.code], ['Ünïc', '999.99', 'ab ']);
  });

  test('identity columns: generated always refuses a value naming the field, by default takes one', async ({
    db,
    catalog,
    store,
  }) => {
    await sql`create table ${inSchema('always')} (id int generated always as identity primary key, n int,
      twice int generated always as (n * 2) stored)`.execute(db);
    const always = await collection(catalog, 'always');
    await refusal(store, (w) => w.insert(always, [{ id: 5, n: 1 }]), 'FAILED_VALIDATION', 'id');
    await refusal(store, (w) => w.insert(always, [{ n: 1, twice: 3 }]), 'FAILED_VALIDATION', 'twice');
    const [first] = await store.write((w) => w.insert(always, [{ n: 1 }, {}]));
    await refusal(store, (w) => w.update(always, [first!], { twice: 3 }), 'FAILED_VALIDATION', 'twice');
  });

  test('types the API cannot create: real, json and arrays read canonical, unknown ones are left out', async ({
    db,
    catalog,
    store,
  }) => {
    await sql`create table ${inSchema('odd')} (id bigint primary key, r real, j json, tags int[],
      price numeric(10, 2), span interval)`.execute(db);
    await sql`insert into ${inSchema('odd')} values (1, 1.1, '{"b": 1, "a": [2]}', '{1,2}', 1.1, '1 day')`.execute(
      db,
    );
    const odd = await collection(catalog, 'odd');
    const row = (await store.write((w) => w.lockRows(odd, ['1']))).get('1')!;
    assert.equal(
      { ...row },
      { id: '1', r: Math.fround(1.1), j: '{"a":[2],"b":1}', price: '1.1', tags: '[1,2]' },
    );
    const refused = await refusal(
      store,
      (w) => w.update(odd, ['1'], { span: '2 days' }),
      'FAILED_VALIDATION',
      'span',
    );
    assert.match(refused.message, /cannot be written/);
    await store.write((w) => w.update(odd, ['1'], { r: Math.fround(2.5), j: '[1,"x"]' }));
    const updated = (await store.write((w) => w.lockMatching(odd, null)))[0]!;
    assert.equal([updated.r, updated.j], [2.5, '[1,"x"]']);
  });

  test('a batch past the bind-parameter limit is split, keeps its key order, and stays atomic', async ({
    db,
    catalog,
    store,
  }) => {
    const columns = Array.from({ length: 70 }, (_, index) => sql`${sql.id(`c${index}`)} int`);
    await sql`create table ${inSchema('wide')} (id int generated by default as identity primary key,
      ${sql.join(columns)}, code text unique)`.execute(db);
    const wide = await collection(catalog, 'wide');
    const row = (index: number) => ({
      ...Object.fromEntries(Array.from({ length: 70 }, (_, column) => [`c${column}`, index])),
      code: `k${index}`,
    });
    // 1000 rows × 71 values: two statements.
    const keys = await store.write((w) =>
      w.insert(
        wide,
        Array.from({ length: 1000 }, (_, index) => row(index)),
      ),
    );
    assert.equal(
      keys,
      Array.from({ length: 1000 }, (_, index) => index + 1),
    );
    const batch = Array.from({ length: 1000 }, (_, index) => row(1000 + index));
    batch[999] = row(0); // the last row, in the second statement, repeats a code
    await refusal(store, (w) => w.insert(wide, batch), 'RECORD_NOT_UNIQUE', 'code');
    assert.is(await countOf(db, 'wide'), 1000);
  });

  test('a table or column dropped behind the catalog is a stale schema', async ({ db, catalog, store }) => {
    await sql`create table ${inSchema('gone')} (id int primary key, note text)`.execute(db);
    const gone = await collection(catalog, 'gone');
    await sql`alter table ${inSchema('gone')} drop column note`.execute(db);
    try {
      await store.write((w) => w.insert(gone, [{ id: 1, note: 'x' }]));
      assert.unreachable('insert into a dropped column succeeded');
    } catch (error) {
      assert.instance(error, StaleSchemaError);
    }
    await sql`drop table ${inSchema('gone')}`.execute(db);
    try {
      await store.write((w) => w.lockRows(gone, [1]));
      assert.unreachable('lock on a dropped table succeeded');
    } catch (error) {
      assert.instance(error, StaleSchemaError);
    }
  });

  test.run();
}
