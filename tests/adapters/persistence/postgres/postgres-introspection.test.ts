import { type Kysely, sql } from 'kysely';
import * as assert from 'uvu/assert';
import type { MikroOrmPersistence } from '../../../../src/adapters/persistence/mikro-orm/open-mikro-orm-persistence.ts';
import { userTablesDatabase } from '../../../../src/adapters/persistence/postgres/postgres-collections.ts';
import { PostgresItemStore } from '../../../../src/adapters/persistence/postgres/postgres-item-store.ts';
import { PostgresSchemaCatalog } from '../../../../src/adapters/persistence/postgres/postgres-schema-catalog.ts';
import type { Condition, ScalarValue } from '../../../../src/domain/query/filter.ts';
import type { CollectionSchema, FieldSchema } from '../../../../src/domain/schema/collection-schema.ts';
import { emptySchema, TEST_SCHEMA } from '../../../support/collections.ts';
import { databaseBackends } from '../../../support/databases.ts';
import { expectDomainError } from '../../../support/expect-domain-error.ts';
import { listRequest } from '../../../support/list-request.ts';
import { suitePerBackend } from '../../../support/suite-per-backend.ts';

/**
 * What only a real database has: tables made outside the API (any SQL type, composite keys, names no API
 * call could create), other schemas, the system tables, and the server's own errors.
 */
for (const [target, test] of suitePerBackend<
  { db: Kysely<unknown>; catalog: PostgresSchemaCatalog },
  MikroOrmPersistence
>(databaseBackends(), (backend) => `PostgreSQL introspection and reads on ${backend}`)) {
  test.before.each(async (context) => {
    context.db = userTablesDatabase((await target.fresh()).orm);
    await emptySchema(context.db, TEST_SCHEMA);
    context.catalog = new PostgresSchemaCatalog(context.db, TEST_SCHEMA);
  });
  test.after(() => target.dispose());

  const inSchema = (name: string) => sql.id(TEST_SCHEMA, name);
  const collection = (catalog: PostgresSchemaCatalog, name: string): CollectionSchema => {
    const found = catalog.current().collections.get(name);
    if (!found) throw new Error(`no collection ${name}`);
    return found;
  };
  const fieldsByName = (c: CollectionSchema) => Object.fromEntries(c.fields.map((f) => [f.name, f]));

  test('current() before the first refresh() is a programming error', ({ catalog }) => {
    assert.throws(() => catalog.current(), /refresh/);
  });

  test('every PostgreSQL type maps to its field type, arrays by their element; the rest is unknown', async ({
    db,
    catalog,
  }) => {
    await sql`create domain ${inSchema('positive')} as integer check (value > 0)`.execute(db);
    await sql`create table ${inSchema('types')} (
      a_uuid uuid, a_varchar varchar(40), a_char char(3), a_text text, a_int2 smallint, a_int4 integer,
      a_int8 bigint, a_float4 real, a_float8 double precision, a_numeric numeric(10, 2), a_bool boolean,
      a_timestamp timestamp(3), a_timestamptz timestamptz, a_date date, a_time time, a_json json,
      a_jsonb jsonb, a_domain ${inSchema('positive')}, a_array integer[], a_interval interval, a_timetz timetz,
      a_bytea bytea, a_varchar_unbounded varchar, a_json_array jsonb[], a_interval_array interval[],
      a_matrix varchar(2)[][])`.execute(db);
    await catalog.refresh();
    const types = collection(catalog, 'types');
    assert.equal(
      types.fields.map((f) => [f.name, f.type]),
      [
        ['a_uuid', 'uuid'],
        ['a_varchar', 'string'],
        ['a_char', 'string'],
        ['a_text', 'text'],
        ['a_int2', 'integer'],
        ['a_int4', 'integer'],
        ['a_int8', 'bigInteger'],
        ['a_float4', 'float'],
        ['a_float8', 'float'],
        ['a_numeric', 'decimal'],
        ['a_bool', 'boolean'],
        ['a_timestamp', 'timestamp'],
        ['a_timestamptz', 'dateTime'],
        ['a_date', 'date'],
        ['a_time', 'time'],
        ['a_json', 'json'],
        ['a_jsonb', 'json'],
        ['a_domain', 'integer'],
        ['a_array', 'array'],
        ['a_interval', 'unknown'],
        ['a_timetz', 'unknown'],
        ['a_bytea', 'unknown'],
        ['a_varchar_unbounded', 'string'],
        ['a_json_array', 'unknown'],
        ['a_interval_array', 'unknown'],
        ['a_matrix', 'array'],
      ],
    );
    const byName = fieldsByName(types);
    assert.equal(
      [byName.a_varchar!.maxLength, byName.a_char!.maxLength, byName.a_varchar_unbounded!.maxLength],
      [40, 3, null],
    );
    assert.is(byName.a_numeric!.dbType, 'numeric(10,2)');
    assert.is(byName.a_timestamp!.dbType, 'timestamp(3) without time zone');
    assert.is(byName.a_array!.dbType, 'integer[]');
    assert.equal(byName.a_array!.element, { type: 'integer', dbType: 'integer', maxLength: null });
    // PostgreSQL does not keep the declared dimensions: varchar(2)[][] is varchar(2)[].
    assert.equal(byName.a_matrix!.element, { type: 'string', dbType: 'character varying(2)', maxLength: 2 });
    assert.is(byName.a_json_array!.element, undefined);
    assert.is(types.primaryKey, null);
  });

  test('nullability, defaults, identity, serial, generated columns, keys and unique indexes', async ({
    db,
    catalog,
  }) => {
    await sql`create table ${inSchema('keys')} (
      id bigint generated always as identity primary key,
      counter serial,
      code varchar(8) not null default 'n/a',
      email text unique,
      doubled integer generated always as (counter * 2) stored,
      partial text, expression text, pair_a int, pair_b int,
      unique (pair_a, pair_b))`.execute(db);
    await sql`create unique index on ${inSchema('keys')} (partial) where partial <> ''`.execute(db);
    await sql`create unique index on ${inSchema('keys')} (lower(expression))`.execute(db);
    await catalog.refresh();
    const keys = collection(catalog, 'keys');
    assert.is(keys.primaryKey, 'id');
    const f = fieldsByName(keys);
    const summary = (field: FieldSchema) => [
      field.nullable,
      field.hasDefault,
      field.isPrimaryKey,
      field.isUnique,
    ];
    assert.equal(summary(f.id!), [false, true, true, true]);
    assert.equal(summary(f.counter!), [false, true, false, false]);
    assert.equal(summary(f.code!), [false, true, false, false]);
    assert.equal(summary(f.email!), [true, false, false, true]);
    assert.equal(summary(f.doubled!), [true, true, false, false]);
    assert.equal(summary(f.partial!), [true, false, false, false]);
    assert.equal(summary(f.expression!), [true, false, false, false]);
    assert.equal(summary(f.pair_a!), [true, false, false, false]);
    assert.is(f.id!.defaultValue, null);
    assert.match(f.counter!.defaultValue ?? '', /^nextval\(/);
    assert.is(f.code!.defaultValue, "'n/a'::character varying");
  });

  test('a composite primary key leaves the collection without a key', async ({ db, catalog }) => {
    await sql`create table ${inSchema('pairs')} (a int, b int, primary key (a, b))`.execute(db);
    await catalog.refresh();
    const pairs = collection(catalog, 'pairs');
    assert.is(pairs.primaryKey, null);
    assert.equal(
      pairs.fields.map((f) => [f.isPrimaryKey, f.nullable]),
      [
        [false, false],
        [false, false],
      ],
    );
  });

  test('names with quotes, spaces, dots and unicode are read and queried verbatim', async ({
    db,
    catalog,
  }) => {
    const table = 'we"ird. tåble 🚢';
    await sql`create table ${inSchema(table)} (${sql.id('i"d')} int primary key, ${sql.id('a.b c')} text, ${sql.id('ünï"')} int)`.execute(
      db,
    );
    await sql`insert into ${inSchema(table)} values (1, 'x', 10), (2, 'y', 20)`.execute(db);
    await sql`create table ${inSchema('empty')} ()`.execute(db);
    await catalog.refresh();
    const weird = collection(catalog, table);
    assert.equal(
      weird.fields.map((f) => f.name),
      ['i"d', 'a.b c', 'ünï"'],
    );
    assert.is(weird.primaryKey, 'i"d');
    assert.equal(collection(catalog, 'empty').fields, []);
    const store = new PostgresItemStore(db, TEST_SCHEMA);
    const filter: Condition<ScalarValue> = { kind: 'condition', field: 'ünï"', operator: '_gt', value: 10 };
    const result = await store.list({
      collection: weird,
      select: weird.fields.map((f) => ({ field: f.name, visibleWhen: null })),
      visible: null,
      filter,
      sort: [{ field: 'a.b c', direction: 'desc' }],
      limit: 10,
      offset: 0,
      count: { total: true, filtered: true },
    });
    assert.equal(JSON.parse(result.json), [{ 'i"d': 2, 'a.b c': 'y', 'ünï"': 20 }]);
    assert.equal([result.totalCount, result.filterCount], [2, 1]);
    const item = await store.get({
      collection: weird,
      select: [{ field: 'a.b c', visibleWhen: null }],
      visible: filter,
      id: 2,
    });
    assert.equal(JSON.parse(item!), { 'a.b c': 'y' });
  });

  test('dates outside years 1 to 9999, which only SQL writes, read as PostgreSQL writes them, the offset before BC', async ({
    db,
    catalog,
  }) => {
    await sql`create table ${inSchema('eras')} (id int primary key, instant timestamptz, moment timestamp, day date)`.execute(
      db,
    );
    await sql`insert into ${inSchema('eras')} values
      (1, '0001-01-01 00:00:00+01', '0044-03-15 12:00 BC', '0044-03-15 BC'),
      (2, '10000-01-01 00:00:00.5+00', '10000-01-01 00:00', '10000-01-01'),
      (3, '0001-01-01 00:00:00+00', '0001-01-01 00:00', '0001-01-01')`.execute(db);
    await catalog.refresh();
    const eras = collection(catalog, 'eras');
    const result = await new PostgresItemStore(db, TEST_SCHEMA).list(
      listRequest(eras, {
        select: eras.fields.map((f) => ({ field: f.name, visibleWhen: null })),
        sort: [{ field: 'id', direction: 'asc' }],
      }),
    );
    assert.equal(JSON.parse(result.json), [
      {
        id: 1,
        instant: '0001-12-31T23:00:00+00:00 BC',
        moment: '0044-03-15T12:00:00 BC',
        day: '0044-03-15 BC',
      },
      { id: 2, instant: '10000-01-01T00:00:00.5+00:00', moment: '10000-01-01T00:00:00', day: '10000-01-01' },
      { id: 3, instant: '0001-01-01T00:00:00+00:00', moment: '0001-01-01T00:00:00', day: '0001-01-01' },
    ]);
  });

  test('system tables (but files) and other schemas are not collections; views are, read-only', async ({
    db,
    catalog,
  }) => {
    await sql`create table ${inSchema('DataGate_Shadow')} (id int)`.execute(db);
    await sql`create table ${inSchema('real')} (id int)`.execute(db);
    await sql`create view ${inSchema('a_view')} as select 1 as one`.execute(db);
    await sql`create materialized view ${inSchema('a_matview')} as select 2 as two`.execute(db);
    await catalog.refresh();
    const collections = catalog.current().collections;
    assert.equal([...collections.keys()], ['a_matview', 'a_view', 'real']);
    assert.equal(
      [...collections.values()].map((found) => found.readOnly === true),
      [true, true, false],
    );
    const publicCatalog = new PostgresSchemaCatalog(db);
    const names = [...(await publicCatalog.refresh()).collections.keys()];
    assert.not.ok(names.includes('real'));
    // Files are the one system table presented as a collection (docs/decisions/0037).
    assert.equal(
      names.filter((name) => name.toLowerCase().startsWith('datagate_')),
      ['datagate_files'],
    );
  });

  test('a value the database cannot cast is INVALID_QUERY, not a server error; narrow columns still compare', async ({
    db,
    catalog,
  }) => {
    await sql`create table ${inSchema('typed')} (id uuid primary key, at timestamp, n smallint, big bigint, r real)`.execute(
      db,
    );
    await sql`insert into ${inSchema('typed')} (id, r) values ('0190a000-0000-7000-8000-000000000001', 1.1)`.execute(
      db,
    );
    await catalog.refresh();
    const typed = collection(catalog, 'typed');
    const store = new PostgresItemStore(db, TEST_SCHEMA);
    const listWhere = (filter: Condition<ScalarValue>) =>
      store.list({
        collection: typed,
        select: [{ field: 'id', visibleWhen: null }],
        visible: null,
        filter,
        sort: [],
        limit: 1,
        offset: 0,
        count: { total: false, filtered: false },
      });
    await expectDomainError(
      listWhere({ kind: 'condition', field: 'id', operator: '_eq', value: 'not-a-uuid' }),
      'INVALID_QUERY',
    );
    await expectDomainError(
      listWhere({ kind: 'condition', field: 'at', operator: '_eq', value: '2024-13-45' }),
      'INVALID_QUERY',
    );
    await expectDomainError(
      listWhere({ kind: 'condition', field: 'big', operator: '_eq', value: '99999999999999999999' }),
      'INVALID_QUERY',
    );
    await expectDomainError(
      listWhere({
        kind: 'condition',
        field: 'id',
        operator: '_in',
        values: ['0190a000-0000-7000-8000-000000000001', 'x'],
      }),
      'INVALID_QUERY',
    );
    await expectDomainError(
      store.get({ collection: typed, select: [], visible: null, id: 'not-a-uuid' }),
      'INVALID_QUERY',
    );
    // A value beyond a narrow column's range compares instead of failing: it matches nothing.
    const wide = await listWhere({ kind: 'condition', field: 'n', operator: '_eq', value: 100000 });
    assert.is(wide.json, '[]');
    // A real column compares at its own precision: 1.1 finds the row that reads back as 1.1.
    const real = await listWhere({ kind: 'condition', field: 'r', operator: '_eq', value: 1.1 });
    assert.equal(JSON.parse(real.json), [{ id: '0190a000-0000-7000-8000-000000000001' }]);
  });

  test('unknown fields are programming errors', async ({ db, catalog }) => {
    await sql`create table ${inSchema('plain')} (id int primary key)`.execute(db);
    await catalog.refresh();
    const plain = collection(catalog, 'plain');
    const store = new PostgresItemStore(db, TEST_SCHEMA);
    const base = {
      collection: plain,
      select: [{ field: 'id', visibleWhen: null }],
      visible: null,
      sort: [],
      limit: null,
      offset: 0,
      count: { total: false, filtered: false },
    };
    try {
      await store.list({ ...base, filter: null, select: [{ field: 'nope', visibleWhen: null }] });
      assert.unreachable();
    } catch (error) {
      assert.match((error as Error).message, /Field "nope" is not in collection "plain"/);
    }
  });

  test.run();
}
