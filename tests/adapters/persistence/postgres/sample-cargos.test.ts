import type { MikroORM } from '@mikro-orm/postgresql';
import { sql } from 'kysely';
import * as assert from 'uvu/assert';
import type { MikroOrmPersistence } from '../../../../src/adapters/persistence/mikro-orm/open-mikro-orm-persistence.ts';
import { userTablesDatabase } from '../../../../src/adapters/persistence/postgres/postgres-collections.ts';
import { PostgresItemStore } from '../../../../src/adapters/persistence/postgres/postgres-item-store.ts';
import { PostgresSchemaCatalog } from '../../../../src/adapters/persistence/postgres/postgres-schema-catalog.ts';
import {
  CARGOS_FIELDS,
  createSampleCargos,
  SAMPLE_CUSTOMERS,
} from '../../../../src/adapters/persistence/postgres/sample-cargos.ts';
import { emptySchema, TEST_SCHEMA } from '../../../support/collections.ts';
import { databaseBackends } from '../../../support/databases.ts';
import { suitePerBackend } from '../../../support/suite-per-backend.ts';

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

for (const [target, test] of suitePerBackend<{ orm: MikroORM }, MikroOrmPersistence>(
  databaseBackends(),
  (backend) => `sample cargos on ${backend}`,
)) {
  test.before.each(async (context) => {
    context.orm = (await target.fresh()).orm;
    await emptySchema(userTablesDatabase(context.orm), TEST_SCHEMA);
  });
  test.after(() => target.dispose());

  test('creates the seed collection and reports progress per batch', async ({ orm }) => {
    const progress: Array<[number, number]> = [];
    const cargos = await createSampleCargos(orm, {
      rows: 2500,
      batchSize: 1000,
      schema: TEST_SCHEMA,
      onProgress: (inserted, total) => progress.push([inserted, total]),
    });
    assert.equal(
      cargos.fields.map((field) => [field.name, field.type, field.nullable]),
      CARGOS_FIELDS.map((field) => [
        field.field,
        field.type,
        field.field !== 'id' && field.field !== 'is_deleted',
      ]),
    );
    assert.is(cargos.primaryKey, 'id');
    assert.equal(progress, [
      [1000, 2500],
      [2000, 2500],
      [2500, 2500],
    ]);
    // Analyzed at the end: the planner knows the sizes (the embedded database has no autovacuum).
    const { rows } = await sql<{
      relname: string;
      reltuples: number;
    }>`select c.relname, c.reltuples::float8 as reltuples
        from pg_class c join pg_namespace n on n.oid = c.relnamespace
        where n.nspname = ${TEST_SCHEMA} and c.relname in ('cargos', 'shipments', 'customers') order by c.relname`.execute(
      userTablesDatabase(orm),
    );
    assert.equal(
      rows.map((row) => [row.relname, row.reltuples]),
      [
        ['cargos', 2500],
        ['customers', SAMPLE_CUSTOMERS.length],
        ['shipments', 50],
      ],
    );
  });

  test('generated items look like the seed: v7 ids, whole-second timestamps, some deleted, some unmeasured', async ({
    orm,
  }) => {
    const cargos = await createSampleCargos(orm, { rows: 2000, schema: TEST_SCHEMA });
    const store = new PostgresItemStore(userTablesDatabase(orm), TEST_SCHEMA);
    const result = await store.list({
      collection: cargos,
      select: cargos.fields.map((field) => ({ field: field.name, visibleWhen: null })),
      visible: null,
      filter: null,
      sort: [],
      limit: null,
      offset: 0,
      count: { total: true, filtered: false },
    });
    const items = JSON.parse(result.json) as Array<Record<string, unknown>>;
    assert.is(result.totalCount, 2000);
    assert.is(new Set(items.map((item) => item.id)).size, 2000);
    for (const item of items) {
      assert.match(String(item.id), UUID_V7);
      assert.match(String(item.date_created), /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/);
      assert.type(item.is_deleted, 'boolean');
      assert.type(item.description, 'string');
    }
    const share = (predicate: (item: Record<string, unknown>) => boolean) =>
      items.filter(predicate).length / items.length;
    // Loose bounds: 2000 draws of 10 % / 5 % / 30 % stay well inside them.
    assert.ok(
      share((item) => item.is_deleted === true) > 0.05 && share((item) => item.is_deleted === true) < 0.15,
    );
    assert.ok(
      share((item) => item.temperature === null) > 0.01 && share((item) => item.temperature === null) < 0.1,
    );
    assert.ok(
      share((item) => item.date_updated !== null) > 0.2 && share((item) => item.date_updated !== null) < 0.4,
    );
    // v7 ids carry the creation time: ordered by id is ordered by date_created.
    const byId = [...items].sort((a, b) => String(a.id).localeCompare(String(b.id)));
    const created = byId.map((item) => String(item.date_created));
    assert.equal(created, [...created].sort());
  });

  test('cargos refer to shipments, shipments to customers, by indexed foreign keys', async ({ orm }) => {
    await createSampleCargos(orm, { rows: 1000, schema: TEST_SCHEMA });
    const db = userTablesDatabase(orm);
    const { relations } = await new PostgresSchemaCatalog(db, TEST_SCHEMA).refresh();
    assert.equal(
      relations.map((relation) => [
        relation.collection,
        relation.field,
        relation.relatedCollection,
        relation.relatedField,
        relation.oneField,
      ]),
      [
        ['cargos', 'shipment', 'shipments', 'id', 'cargos'],
        ['shipments', 'customer', 'customers', 'id', 'shipments'],
      ],
    );
    const names = await sql<{
      name: string;
    }>`select name from ${sql.id(TEST_SCHEMA, 'customers')} order by id`.execute(db);
    assert.equal(
      names.rows.map((row) => row.name),
      SAMPLE_CUSTOMERS,
    );
    const { rows } = await sql<{ shipments: string; unshipped: string; customers: string }>`
      select (select count(*) from ${sql.id(TEST_SCHEMA, 'shipments')}) as shipments,
        (select count(*) from ${sql.id(TEST_SCHEMA, 'cargos')} where shipment is null) as unshipped,
        (select count(distinct customer) from ${sql.id(TEST_SCHEMA, 'shipments')}) as customers`.execute(db);
    assert.is(Number(rows[0]!.shipments), 20);
    assert.ok(Number(rows[0]!.unshipped) < 100, rows[0]!.unshipped);
    assert.ok(Number(rows[0]!.customers) > 1);
    const indexes = await sql<{ indexname: string }>`select indexname from pg_indexes
      where schemaname = ${TEST_SCHEMA} and indexname like '%\_index' order by indexname`.execute(db);
    assert.equal(
      indexes.rows.map((row) => row.indexname),
      ['cargos_shipment_index', 'shipments_customer_index'],
    );
  });

  test('a cargos collection made before relations gains its shipment', async ({ orm }) => {
    const db = userTablesDatabase(orm);
    await sql`create table ${sql.id(TEST_SCHEMA, 'cargos')} (id uuid primary key, date_created timestamp,
      date_updated timestamp, description text, temperature float8, is_deleted boolean not null default false)`.execute(
      db,
    );
    await createSampleCargos(orm, { rows: 10, schema: TEST_SCHEMA });
    const { rows } = await sql<{ n: string }>`select count(*) as n from ${sql.id(TEST_SCHEMA, 'cargos')}
      where shipment is not null`.execute(db);
    assert.ok(Number(rows[0]!.n) > 0);
  });

  test('a second run adds rows to the existing collection', async ({ orm }) => {
    await createSampleCargos(orm, { rows: 10, schema: TEST_SCHEMA });
    await createSampleCargos(orm, { rows: 5, schema: TEST_SCHEMA });
    const { rows } = await sql<{
      n: string;
    }>`select count(*) as n from ${sql.id(TEST_SCHEMA, 'cargos')}`.execute(userTablesDatabase(orm));
    assert.is(Number(rows[0]!.n), 15);
    const customers = await sql<{
      n: string;
    }>`select count(*) as n from ${sql.id(TEST_SCHEMA, 'customers')}`.execute(userTablesDatabase(orm));
    assert.is(Number(customers.rows[0]!.n), SAMPLE_CUSTOMERS.length);
  });

  test.run();
}
