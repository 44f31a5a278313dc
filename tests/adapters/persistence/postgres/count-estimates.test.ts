import { type Kysely, sql } from 'kysely';
import * as assert from 'uvu/assert';
import type { MikroOrmPersistence } from '../../../../src/adapters/persistence/mikro-orm/open-mikro-orm-persistence.ts';
import { EXACT_UP_TO } from '../../../../src/adapters/persistence/postgres/count-estimates.ts';
import { userTablesDatabase } from '../../../../src/adapters/persistence/postgres/postgres-collections.ts';
import { PostgresItemStore } from '../../../../src/adapters/persistence/postgres/postgres-item-store.ts';
import { PostgresSchemaCatalog } from '../../../../src/adapters/persistence/postgres/postgres-schema-catalog.ts';
import type { ItemListRequest } from '../../../../src/application/ports/item-store.ts';
import type { BoundFilterNode } from '../../../../src/domain/query/filter.ts';
import type { CollectionSchema } from '../../../../src/domain/schema/collection-schema.ts';
import { emptySchema, TEST_SCHEMA } from '../../../support/collections.ts';
import { databaseBackends } from '../../../support/databases.ts';
import { suitePerBackend } from '../../../support/suite-per-backend.ts';

type Context = { db: Kysely<unknown>; catalog: PostgresSchemaCatalog; store: PostgresItemStore };

const ROWS = 2000;

/** The planner's estimates (count-estimates.ts): close to the truth, from statistics, never a scan. */
for (const [target, test] of suitePerBackend<Context, MikroOrmPersistence>(
  databaseBackends(),
  (backend) => `estimated counts on ${backend}`,
)) {
  test.before.each(async (context) => {
    context.db = userTablesDatabase((await target.fresh()).orm);
    await emptySchema(context.db, TEST_SCHEMA);
    context.catalog = new PostgresSchemaCatalog(context.db, TEST_SCHEMA);
    context.store = new PostgresItemStore(context.db, TEST_SCHEMA);
    await sql`create table ${sql.id(TEST_SCHEMA, 'readings')} (id int primary key, n int not null)`.execute(
      context.db,
    );
    await sql`insert into ${sql.id(TEST_SCHEMA, 'readings')} select i, i % 10 from generate_series(1, ${ROWS}::int) as i`.execute(
      context.db,
    );
    await context.catalog.refresh();
  });
  test.after(() => target.dispose());

  const readings = (catalog: PostgresSchemaCatalog): CollectionSchema =>
    catalog.current().collections.get('readings')!;
  const estimate = (
    store: PostgresItemStore,
    collection: CollectionSchema,
    overrides: Partial<ItemListRequest>,
  ) =>
    store.list({
      collection,
      select: [],
      visible: null,
      filter: null,
      sort: [],
      limit: 0,
      offset: 0,
      count: { total: false, filtered: false, estimatedTotal: true, estimatedFiltered: true },
      ...overrides,
    });
  const lowN: BoundFilterNode = { kind: 'condition', field: 'n', operator: '_lt', value: 2 };

  test('a table never analyzed is estimated from its size on disk, not answered -1', async ({
    db,
    catalog,
    store,
  }) => {
    const { rows } = await sql<{ reltuples: number }>`select c.reltuples::float8 as reltuples
        from pg_class c join pg_namespace n on n.oid = c.relnamespace
        where n.nspname = ${TEST_SCHEMA} and c.relname = 'readings'`.execute(db);
    const reltuples = rows[0]!.reltuples;
    assert.is(reltuples, -1, 'the table has not been analyzed yet');
    const result = await estimate(store, readings(catalog), {});
    assert.ok(result.estimatedTotalCount! > 0, String(result.estimatedTotalCount));
  });

  test('after ANALYZE: reltuples for the whole table, the plan row estimate for a filter and the rule', async ({
    db,
    catalog,
    store,
  }) => {
    await sql`analyze ${sql.id(TEST_SCHEMA, 'readings')}`.execute(db);
    const collection = readings(catalog);
    const whole = await estimate(store, collection, { filter: lowN });
    assert.is(whole.estimatedTotalCount, ROWS);
    const near = (value: number | undefined, expected: number) =>
      assert.ok(
        value !== undefined && Math.abs(value - expected) <= expected * 0.2,
        `${value} ≈ ${expected}`,
      );
    near(whole.estimatedFilterCount, ROWS / 5);
    const ruled = await estimate(store, collection, {
      visible: { kind: 'condition', field: 'n', operator: '_eq', value: 0 },
      filter: lowN,
    });
    near(ruled.estimatedTotalCount, ROWS / 10);
    // The planner takes conditions as independent (n = 0 and n < 2: a fifth of a tenth): an estimate.
    assert.ok(ruled.estimatedFilterCount! > 0 && ruled.estimatedFilterCount! <= ruled.estimatedTotalCount!);
  });

  test('values reach EXPLAIN as bound parameters: SQL in them is data', async ({ db, catalog, store }) => {
    await sql`create table ${sql.id(TEST_SCHEMA, 'notes')} (id int primary key, body text)`.execute(db);
    await catalog.refresh();
    const notes = catalog.current().collections.get('notes')!;
    const result = await estimate(store, notes, {
      filter: { kind: 'condition', field: 'body', operator: '_eq', value: "x'; drop table readings; --" },
    });
    assert.ok(Number.isInteger(result.estimatedFilterCount));
    const { rows } = await sql<{
      n: string;
    }>`select count(*) as n from ${sql.id(TEST_SCHEMA, 'readings')}`.execute(db);
    assert.is(Number(rows[0]!.n), ROWS);
  });

  test('a page of no rows asking only for estimates runs the estimates alone: no page statement', async ({
    db,
    catalog,
  }) => {
    await sql`analyze ${sql.id(TEST_SCHEMA, 'readings')}`.execute(db);
    let statements = 0;
    const store = new PostgresItemStore(
      db.withPlugin({
        transformQuery: ({ node }) => node,
        transformResult: async ({ result }) => {
          statements++;
          return result;
        },
      }),
      TEST_SCHEMA,
    );
    const collection = readings(catalog);
    // A filter matching more rows than are counted instead of estimated: two statements, no count.
    const highN: BoundFilterNode = { kind: 'condition', field: 'n', operator: '_lt', value: 8 };
    const onlyEstimates = await estimate(store, collection, { filter: highN, lastRowFields: ['id'] });
    assert.equal(
      { json: onlyEstimates.json, lastRow: onlyEstimates.lastRow, total: onlyEstimates.estimatedTotalCount },
      { json: '[]', lastRow: null, total: ROWS },
    );
    assert.is(statements, 2, "the table's reltuples and the filter's EXPLAIN, and no page");
    statements = 0;
    const withExact = await estimate(store, collection, {
      filter: highN,
      count: { total: true, filtered: false, estimatedTotal: false, estimatedFiltered: true },
    });
    assert.equal({ json: withExact.json, total: withExact.totalCount }, { json: '[]', total: ROWS });
    assert.is(statements, 3, "the page statement, which counts, the table's reltuples and the EXPLAIN");
  });

  const table = (name: string) => sql.id(TEST_SCHEMA, name);

  test('a small estimate is a count: a new table of three rows is 3, not a guess from its size on disk', async ({
    db,
    catalog,
    store,
  }) => {
    await sql`create table ${table('notes')} (id int primary key, body text)`.execute(db);
    await sql`insert into ${table('notes')} values (1, 'a'), (2, 'b'), (3, 'c')`.execute(db);
    await catalog.refresh();
    const notes = catalog.current().collections.get('notes')!;
    const result = await estimate(store, notes, {
      filter: { kind: 'condition', field: 'body', operator: '_neq', value: 'b' },
    });
    assert.equal([result.estimatedTotalCount, result.estimatedFilterCount], [3, 2]);
  });

  test('statistics gone stale below the threshold are counted past', async ({ db, catalog, store }) => {
    await sql`create table ${table('growing')} (id int primary key)`.execute(db);
    await sql`insert into ${table('growing')} select generate_series(1, 10)`.execute(db);
    await sql`analyze ${table('growing')}`.execute(db);
    await sql`insert into ${table('growing')} select generate_series(11, 500)`.execute(db);
    await catalog.refresh();
    const result = await estimate(store, catalog.current().collections.get('growing')!, {});
    assert.is(result.estimatedTotalCount, 500);
  });

  test('a large set the planner takes for a small one is counted no further than one past the threshold', async ({
    db,
    catalog,
    store,
  }) => {
    // n and m always agree, which the planner cannot know: it multiplies a tenth by a tenth.
    await sql`create table ${table('pairs')} (id int primary key, n int not null, m int not null)`.execute(
      db,
    );
    await sql`insert into ${table('pairs')} select i, i % 10, i % 10 from generate_series(1, 20000) as i`.execute(
      db,
    );
    await sql`analyze ${table('pairs')}`.execute(db);
    await catalog.refresh();
    const both: BoundFilterNode = {
      kind: 'and',
      nodes: [
        { kind: 'condition', field: 'n', operator: '_eq', value: 0 },
        { kind: 'condition', field: 'm', operator: '_eq', value: 0 },
      ],
    };
    const result = await estimate(store, catalog.current().collections.get('pairs')!, { filter: both });
    assert.is(result.estimatedTotalCount, 20000);
    assert.is(result.estimatedFilterCount, EXACT_UP_TO + 1, 'the 2,000 matching rows, counted up to 1,001');
  });

  test.run();
}
