import { type Kysely, sql } from 'kysely';
import pg from 'pg';
import * as assert from 'uvu/assert';
import type { MikroOrmPersistence } from '../../../../src/adapters/persistence/mikro-orm/open-mikro-orm-persistence.ts';
import { CompiledShapes } from '../../../../src/adapters/persistence/postgres/compiled-shapes.ts';
import {
  itemStoreOptions,
  userTablesDatabase,
} from '../../../../src/adapters/persistence/postgres/postgres-collections.ts';
import { PostgresItemStore } from '../../../../src/adapters/persistence/postgres/postgres-item-store.ts';
import { PostgresSchemaCatalog } from '../../../../src/adapters/persistence/postgres/postgres-schema-catalog.ts';
import { PreparedStatementQuery } from '../../../../src/adapters/persistence/postgres/prepared-statement-query.ts';
import {
  type ItemListRequest,
  type SelectedField,
  StaleSchemaError,
} from '../../../../src/application/ports/item-store.ts';
import type { BoundFilterNode } from '../../../../src/domain/query/filter.ts';
import type { CollectionSchema } from '../../../../src/domain/schema/collection-schema.ts';
import { emptySchema, TEST_SCHEMA } from '../../../support/collections.ts';
import { databaseBackends } from '../../../support/databases.ts';
import { postgresSkip, testDatabaseUrl } from '../../../support/postgres-server.ts';
import { skippableSuite } from '../../../support/skippable-suite.ts';
import { suitePerBackend } from '../../../support/suite-per-backend.ts';

type Context = {
  db: Kysely<unknown>;
  catalog: PostgresSchemaCatalog;
  store: PostgresItemStore;
  prepares: boolean;
};

const table = sql.id(TEST_SCHEMA, 'parcels');

const eq = (field: string, value: string | number): BoundFilterNode => ({
  kind: 'condition',
  field,
  operator: '_eq',
  value,
});

async function staleSchema(reading: Promise<unknown>): Promise<void> {
  const error = await reading.then(
    () => assert.unreachable('expected a StaleSchemaError, but the read succeeded'),
    (error: unknown) => error,
  );
  assert.instance(error, StaleSchemaError, String(error));
}

const fields = (...names: string[]): SelectedField[] => names.map((field) => ({ field, visibleWhen: null }));

/**
 * A read shape is compiled once and, on a PostgreSQL server, prepared on the connection that runs it; a
 * table changed outside the API or a rule edited must retire it: answers stay right, and what cannot be
 * answered from a stale schema is a StaleSchemaError (the application refreshes and retries), never a 500.
 */
for (const [target, test] of suitePerBackend<Context, MikroOrmPersistence>(
  databaseBackends(),
  (backend) => `Compiled and prepared read shapes on ${backend}`,
)) {
  test.before.each(async (context) => {
    const { orm } = await target.fresh();
    context.db = userTablesDatabase(orm);
    await emptySchema(context.db, TEST_SCHEMA);
    context.catalog = new PostgresSchemaCatalog(context.db, TEST_SCHEMA);
    const options = itemStoreOptions(orm);
    context.prepares = (options.preparedPerConnection ?? 0) > 0;
    // As the server runs them: prepared reads on pg's pool itself, not through Kysely's executor.
    const pool = context.prepares ? await orm.em.getConnection().getNativeClient() : undefined;
    context.store = new PostgresItemStore(context.db, TEST_SCHEMA, { ...options, readPool: () => pool });
    await sql`create table ${table} (id integer primary key, status text not null, weight integer not null)`.execute(
      context.db,
    );
    await sql`insert into ${table} values (1, 'new', 10), (2, 'sent', 20), (3, 'new', 30), (4, 'lost', 40)`.execute(
      context.db,
    );
  });
  test.after(() => target.dispose());

  async function parcels(catalog: PostgresSchemaCatalog): Promise<CollectionSchema> {
    return (await catalog.refresh()).collections.get('parcels')!;
  }

  function listOf(collection: CollectionSchema, overrides: Partial<ItemListRequest> = {}): ItemListRequest {
    return {
      collection,
      select: fields('id', 'status'),
      visible: null,
      filter: null,
      sort: [],
      limit: 100,
      offset: 0,
      count: { total: false, filtered: false },
      ...overrides,
    };
  }

  const ids = async (store: PostgresItemStore, request: ItemListRequest) =>
    (JSON.parse((await store.list(request)).json) as Array<{ id: number }>).map(({ id }) => id);

  test('one shape binds each request its own values', async ({ db, catalog, store, prepares }) => {
    const collection = await parcels(catalog);
    for (let round = 0; round < 3; round++) {
      assert.equal(await ids(store, listOf(collection, { filter: eq('status', 'new') })), [1, 3]);
      assert.equal(await ids(store, listOf(collection, { filter: eq('status', 'sent') })), [2]);
      assert.equal(await ids(store, listOf(collection, { filter: eq('status', 'lost'), limit: 0 })), []);
    }
    const got = await store.get({ collection, select: fields('weight'), visible: null, id: 4 });
    assert.is(got, '{"weight":40}');
    assert.is(await store.get({ collection, select: fields('weight'), visible: null, id: 5 }), null);
    // One read at a time reuses the pool's most recently released connection, the one that prepared them.
    const { rows } = await sql<{ n: string }>`select count(*) as n from pg_prepared_statements
      where name like 'dg\_%'`.execute(db);
    assert.is(
      Number(rows[0]!.n),
      prepares ? 2 : 0,
      'one list shape (three values, two limits) and one get shape',
    );
  });

  test("a keyset page is a shape of its own, never a plain page's", async ({
    db,
    catalog,
    store,
    prepares,
  }) => {
    const collection = await parcels(catalog);
    const prepared = async () =>
      Number(
        (
          await sql<{
            n: string;
          }>`select count(*) as n from pg_prepared_statements where name like 'dg\_%'`.execute(db)
        ).rows[0]!.n,
      );
    const before = await prepared();
    const after = (id: number): BoundFilterNode => ({
      kind: 'condition',
      field: 'id',
      operator: '_gt',
      value: id,
    });
    for (let round = 0; round < 2; round++) {
      assert.equal(await ids(store, listOf(collection, { limit: 2 })), [1, 2]);
      const keyset = { limit: 2, after: after(2), lastRowFields: ['id'] };
      const page = await store.list(listOf(collection, keyset));
      assert.equal(JSON.parse(page.json), [
        { id: 3, status: 'new' },
        { id: 4, status: 'lost' },
      ]);
      assert.equal(page.lastRow, { id: 4 });
      assert.equal(await ids(store, listOf(collection, { ...keyset, after: after(3) })), [4]);
    }
    assert.is(
      (await prepared()) - before,
      prepares ? 2 : 0,
      'one plain page shape and one keyset page shape',
    );
  });

  test('a json path is part of a cached shape, bound after its mask: each path its own answer', async ({
    db,
    catalog,
    store,
  }) => {
    const documents = sql.id(TEST_SCHEMA, 'documents');
    await sql`create table ${documents} (id integer primary key, doc jsonb, note json)`.execute(db);
    await sql`insert into ${documents} values
      (1, '{"a": {"b": "one"}, "c": [10, 20]}', '{"a": 1}'), (2, '{"a": {"b": "two"}}', '[5]')`.execute(db);
    const collection = (await catalog.refresh()).collections.get('documents')!;
    const at = (
      field: string,
      path: string[],
      visibleWhen: BoundFilterNode | null = null,
    ): SelectedField => ({
      field,
      visibleWhen,
      json: { path, key: `${field}_${path.join('_')}_json` },
    });
    const request = (select: SelectedField[]): ItemListRequest => ({
      ...listOf(collection, { select: [...fields('id'), ...select] }),
      sort: [{ field: 'id', direction: 'asc' }],
    });
    const shapes = new CompiledShapes();
    const masked = request([at('doc', ['a', 'b'], eq('id', 2)), at('doc', ['c', '1'])]);
    const statement = shapes.list(masked, TEST_SCHEMA);
    assert.ok(statement.name, 'the walk binds as the statement does, so the shape is cached');
    assert.equal(shapes.list(masked, TEST_SCHEMA), statement, 'known: the same text and name');
    assert.ok(
      statement.values.indexOf(2) <
        statement.values.findIndex((value) => Array.isArray(value) && value[0] === 'a'),
      "the mask's value is bound before the path",
    );
    for (let round = 0; round < 2; round++) {
      const page = async (select: SelectedField[]) => JSON.parse((await store.list(request(select))).json);
      assert.equal(await page([at('doc', ['a', 'b'])]), [
        { id: 1, doc_a_b_json: 'one' },
        { id: 2, doc_a_b_json: 'two' },
      ]);
      assert.equal(await page([at('doc', ['c', '1'])]), [
        { id: 1, doc_c_1_json: 20 },
        { id: 2, doc_c_1_json: null },
      ]);
      assert.equal(await page([at('doc', ['a', 'b'], eq('id', 2)), at('note', ['0'])]), [
        { id: 1, doc_a_b_json: null, note_0_json: null },
        { id: 2, doc_a_b_json: 'two', note_0_json: 5 },
      ]);
    }
  });

  test('a column added or dropped under a prepared shape', async ({ db, catalog, store }) => {
    const before = await parcels(catalog);
    const filtered = listOf(before, {
      filter: eq('status', 'new'),
      sort: [{ field: 'weight', direction: 'desc' }],
    });
    assert.equal(await ids(store, filtered), [3, 1]);

    await sql`alter table ${table} add column note text default 'fragile'`.execute(db);
    assert.equal(await ids(store, filtered), [3, 1], 'the old snapshot still reads its own columns');
    const added = await parcels(catalog);
    const withNote = await store.list(
      listOf(added, { select: fields('id', 'note'), filter: eq('status', 'sent') }),
    );
    assert.is(withNote.json, '[{"id":2,"note":"fragile"}]');

    await sql`alter table ${table} drop column weight`.execute(db);
    await staleSchema(store.list(filtered));
    const dropped = await parcels(catalog);
    assert.equal(await ids(store, listOf(dropped, { filter: eq('status', 'new') })), [1, 3]);
  });

  test("a column's type changed under a prepared shape", async ({ db, catalog, store }) => {
    const before = await parcels(catalog);
    const heavy: ItemListRequest = listOf(before, {
      select: fields('id', 'weight'),
      filter: { kind: 'condition', field: 'weight', operator: '_gte', value: 30 },
    });
    assert.is((await store.list(heavy)).json, '[{"id":3,"weight":30},{"id":4,"weight":40}]');

    await sql`alter table ${table} alter column weight type text using weight::text`.execute(db);
    await staleSchema(store.list(heavy));
    const after = await parcels(catalog);
    const asText = await store.list(
      listOf(after, { select: fields('id', 'weight'), filter: eq('weight', '30') }),
    );
    assert.is(asText.json, '[{"id":3,"weight":"30"}]');
  });

  test("an edited rule: new values, then a new structure, under the same caller's shape", async ({
    catalog,
    store,
  }) => {
    const collection = await parcels(catalog);
    const counted = (visible: BoundFilterNode) =>
      listOf(collection, { visible, count: { total: true, filtered: false } });
    assert.is((await store.list(counted(eq('status', 'new')))).totalCount, 2);
    assert.is((await store.list(counted(eq('status', 'sent')))).totalCount, 1);
    const wider: BoundFilterNode = {
      kind: 'or',
      nodes: [eq('status', 'sent'), { kind: 'condition', field: 'weight', operator: '_lt', value: 15 }],
    };
    const result = await store.list(counted(wider));
    assert.is(result.totalCount, 2);
    assert.is(result.json, '[{"id":1,"status":"new"},{"id":2,"status":"sent"}]');
    const masked = await store.list(
      listOf(collection, {
        select: [
          { field: 'id', visibleWhen: null },
          { field: 'status', visibleWhen: eq('status', 'lost') },
        ],
        filter: { kind: 'condition', field: 'id', operator: '_in', values: [3, 4] },
      }),
    );
    assert.is(masked.json, '[{"id":3,"status":null},{"id":4,"status":"lost"}]');
  });

  test.run();
}

const direct = skippableSuite<{ client: pg.Client }>(
  'PreparedStatementQuery on one pg connection',
  postgresSkip,
);

direct.before.each(async (context) => {
  context.client = new pg.Client({ connectionString: testDatabaseUrl() });
  await context.client.connect();
});
direct.after.each(({ client }) => client.end());

const run = (client: pg.Client, name: string, text: string, values: unknown[] = [], bound = 3) =>
  Promise.resolve(
    client.query(
      new PreparedStatementQuery(name, text, values, bound),
    ) as unknown as PromiseLike<pg.QueryResult>,
  );

const preparedNames = async (client: pg.Client) =>
  (await client.query<{ name: string }>('select name from pg_prepared_statements order by name')).rows.map(
    ({ name }) => name,
  );

direct(
  'keeps at most its bound of statements on a connection, the least recently used closed first',
  async ({ client }) => {
    for (const n of [1, 2, 3, 1, 4, 5]) {
      const { rows } = await run(client, `s${n}`, `select $1::int + ${n} as sum`, [n]);
      assert.equal(rows, [{ sum: 2 * n }]);
    }
    assert.equal(await preparedNames(client), ['s1', 's4', 's5']);
    assert.equal((await run(client, 's2', 'select $1::int + 2 as sum', [5])).rows, [{ sum: 7 }]);
    assert.equal(await preparedNames(client), ['s2', 's4', 's5']);
  },
);

direct('a plan refused after its table changed is prepared anew on that connection', async ({ client }) => {
  await client.query('create temporary table shifting (a int)');
  await client.query('insert into shifting values (1)');
  const star = 'select * from shifting';
  assert.equal((await run(client, 'star', star)).rows, [{ a: 1 }]);
  await client.query('alter table shifting add column b int default 2');
  const refused = await run(client, 'star', star).catch((error: unknown) => error);
  assert.is((refused as { code?: string }).code, '0A000');
  assert.equal((await run(client, 'star', star)).rows, [{ a: 1, b: 2 }]);
  assert.equal(await preparedNames(client), ['star']);
});

direct.run();
