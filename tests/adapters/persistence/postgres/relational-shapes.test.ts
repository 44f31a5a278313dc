import { type Kysely, sql } from 'kysely';
import * as assert from 'uvu/assert';
import type { MikroOrmPersistence } from '../../../../src/adapters/persistence/mikro-orm/open-mikro-orm-persistence.ts';
import { CompiledShapes } from '../../../../src/adapters/persistence/postgres/compiled-shapes.ts';
import {
  itemStoreOptions,
  userTablesDatabase,
} from '../../../../src/adapters/persistence/postgres/postgres-collections.ts';
import { PostgresItemStore } from '../../../../src/adapters/persistence/postgres/postgres-item-store.ts';
import { PostgresSchemaCatalog } from '../../../../src/adapters/persistence/postgres/postgres-schema-catalog.ts';
import {
  type ItemListRequest,
  type NestedRead,
  type SelectedField,
  StaleSchemaError,
} from '../../../../src/application/ports/item-store.ts';
import type { BoundFilterNode } from '../../../../src/domain/query/filter.ts';
import type { RelationalHop } from '../../../../src/domain/query/relational-hop.ts';
import type { SchemaSnapshot } from '../../../../src/domain/schema/collection-schema.ts';
import { manyToOneOf, oneToManyOf } from '../../../../src/domain/schema/relations-of.ts';
import { emptySchema, TEST_SCHEMA } from '../../../support/collections.ts';
import { databaseBackends } from '../../../support/databases.ts';
import { suitePerBackend } from '../../../support/suite-per-backend.ts';

type Context = {
  db: Kysely<unknown>;
  catalog: PostgresSchemaCatalog;
  store: PostgresItemStore;
  prepares: boolean;
};

const customers = sql.id(TEST_SCHEMA, 'customers');
const shipments = sql.id(TEST_SCHEMA, 'shipments');
const cargos = sql.id(TEST_SCHEMA, 'cargos');

const cond = (
  field: string,
  operator: '_eq' | '_neq' | '_gt' | '_lte',
  value: string | number,
): BoundFilterNode => ({
  kind: 'condition',
  field,
  operator,
  value,
});
const plain = (...names: string[]): SelectedField[] => names.map((field) => ({ field, visibleWhen: null }));

function hopOf(snapshot: SchemaSnapshot, collection: string, key: string): RelationalHop {
  const manyToOne = manyToOneOf(snapshot, collection, key);
  if (manyToOne) {
    const related = snapshot.collections.get(manyToOne.relatedCollection)!;
    return { key, direction: 'many-to-one', relation: manyToOne, collection: related };
  }
  const oneToMany = oneToManyOf(snapshot, collection, key)!;
  const related = snapshot.collections.get(oneToMany.collection)!;
  return { key, direction: 'one-to-many', relation: oneToMany, collection: related };
}

/**
 * Everything a relational read can hold, each part with values of its own: the shape walk must bind them
 * in the statement's order, or the shape would never be cached nor prepared.
 */
function richList(
  snapshot: SchemaSnapshot,
  values: { name: string; weight: number; limit: number },
): ItemListRequest {
  const customer = hopOf(snapshot, 'shipments', 'customer');
  const cargoHop = hopOf(snapshot, 'shipments', 'cargos');
  const cargoRows: NestedRead = {
    hop: cargoHop,
    select: [{ field: 'label', visibleWhen: cond('weight', '_gt', values.weight) }, ...plain('weight')],
    visible: cond('weight', '_lte', 10),
    filter: cond('label', '_neq', 'zzz'),
    sort: [{ field: 'weight', direction: 'desc' }],
    limit: values.limit,
    offset: 0,
  };
  return {
    collection: snapshot.collections.get('shipments')!,
    select: [
      ...plain('id'),
      {
        field: 'customer',
        visibleWhen: cond('number', '_neq', 'S-secret'),
        nested: {
          hop: customer,
          select: [{ field: 'name', visibleWhen: cond('tier', '_neq', 'hidden') }],
          visible: cond('tier', '_neq', 'secret'),
        },
      },
      { field: 'cargos', visibleWhen: null, nested: cargoRows },
    ],
    visible: {
      kind: 'relation',
      hop: customer,
      quantifier: 'some',
      node: cond('tier', '_neq', 'secret'),
    },
    filter: {
      kind: 'or',
      nodes: [
        { kind: 'relation', hop: customer, quantifier: 'some', node: cond('name', '_eq', values.name) },
        { kind: 'relation', hop: cargoHop, quantifier: 'none', node: cond('weight', '_gt', values.weight) },
      ],
    },
    sort: [
      {
        field: 'name',
        direction: 'desc',
        through: [{ hop: customer, visible: cond('tier', '_neq', 'secret') }],
      },
    ],
    limit: 10,
    offset: 0,
    count: { total: true, filtered: true },
  };
}

/**
 * Relational read shapes are compiled, cached and prepared like flat ones; a relation that changes retires
 * them with the schema snapshot, and a foreign key changed by hand never makes a cached statement answer
 * wrongly or fail with a 500.
 */
for (const [target, test] of suitePerBackend<Context, MikroOrmPersistence>(
  databaseBackends(),
  (backend) => `Relational read shapes on ${backend}`,
)) {
  test.before.each(async (context) => {
    const { orm } = await target.fresh();
    context.db = userTablesDatabase(orm);
    await emptySchema(context.db, TEST_SCHEMA);
    context.catalog = new PostgresSchemaCatalog(context.db, TEST_SCHEMA);
    const options = itemStoreOptions(orm);
    context.prepares = (options.preparedPerConnection ?? 0) > 0;
    context.store = new PostgresItemStore(context.db, TEST_SCHEMA, options);
    await sql`create table ${customers} (id integer primary key, name text, tier text)`.execute(context.db);
    await sql`create table ${shipments} (id integer primary key, number text,
      customer integer constraint shipments_customer_foreign references ${customers} (id))`.execute(
      context.db,
    );
    await sql`create table ${cargos} (id integer primary key, label text, weight integer,
      shipment integer constraint cargos_shipment_foreign references ${shipments} (id))`.execute(context.db);
    await sql`insert into ${customers} values (1, 'ACME', 'gold'), (2, 'Globex', 'silver'), (3, 'Hidden', 'secret')`.execute(
      context.db,
    );
    await sql`insert into ${shipments} values (1, 'S-1', 1), (2, 'S-2', 2), (3, 'S-3', 3), (4, 'S-4', null)`.execute(
      context.db,
    );
    await sql`insert into ${cargos} values (1, 'a', 3, 1), (2, 'b', 7, 1), (3, 'c', 12, 2), (4, 'd', 4, 2)`.execute(
      context.db,
    );
  });
  test.after(() => target.dispose());

  test('a relational shape is cached and prepared, and binds each request its own values', async ({
    catalog,
    store,
  }) => {
    const snapshot = await catalog.refresh();
    const shapes = new CompiledShapes();
    const first = richList(snapshot, { name: 'ACME', weight: 5, limit: 1 });
    const statement = shapes.list(first, TEST_SCHEMA);
    assert.ok(statement.name, 'the walk binds as the statement does, so the shape is cached');
    const second = shapes.list(richList(snapshot, { name: 'Globex', weight: 3, limit: 2 }), TEST_SCHEMA);
    assert.is(second.name, statement.name);
    assert.is.not(second.values, statement.values);
    const shipmentsSchema = snapshot.collections.get('shipments')!;
    const select = first.select;
    assert.ok(
      shapes.get({ collection: shipmentsSchema, select, visible: first.visible, id: 1 }, TEST_SCHEMA).name,
    );
    assert.ok(
      shapes.getMany(
        { collection: shipmentsSchema, select, visible: first.visible, keys: [1, 2] },
        TEST_SCHEMA,
      ).name,
    );
    const withoutLimit = richList(snapshot, { name: 'ACME', weight: 5, limit: 1 });
    const unlimited: ItemListRequest = {
      ...withoutLimit,
      select: withoutLimit.select.map((selected) =>
        selected.nested?.hop.direction === 'one-to-many'
          ? { ...selected, nested: { ...selected.nested, limit: null } }
          : selected,
      ),
    };
    assert.is.not(shapes.list(unlimited, TEST_SCHEMA).name, statement.name, 'a limit or none: two shapes');
    const keysOnly: ItemListRequest = {
      ...first,
      select: first.select.map((selected) =>
        selected.nested?.hop.direction === 'one-to-many'
          ? { ...selected, nested: { ...selected.nested, select: [], keysOnly: true } }
          : selected,
      ),
    };
    const keysStatement = shapes.list(keysOnly, TEST_SCHEMA);
    assert.ok(keysStatement.name);
    assert.is.not(keysStatement.name, statement.name, 'keys or rows: two shapes');
    assert.equal(JSON.parse((await store.list(keysOnly)).json), [
      { id: 1, customer: { name: 'ACME' }, cargos: [2] },
    ]);

    for (let round = 0; round < 2; round++) {
      const page = await store.list(first);
      assert.equal(JSON.parse(page.json), [
        { id: 1, customer: { name: 'ACME' }, cargos: [{ label: 'b', weight: 7 }] },
      ]);
      assert.is(page.totalCount, 2);
      assert.is(page.filterCount, 1);
      const other = await store.list(richList(snapshot, { name: 'Globex', weight: 3, limit: 2 }));
      assert.equal(JSON.parse(other.json), [
        {
          id: 2,
          customer: { name: 'Globex' },
          cargos: [{ label: 'd', weight: 4 }],
        },
      ]);
    }
  });

  test('a relation changed through the schema is a new shape', async ({ db, catalog, store }) => {
    const before = await catalog.refresh();
    const request = (snapshot: SchemaSnapshot): ItemListRequest => ({
      collection: snapshot.collections.get('cargos')!,
      select: [
        ...plain('id'),
        {
          field: 'shipment',
          visibleWhen: null,
          nested: { hop: hopOf(snapshot, 'cargos', 'shipment'), select: plain('number'), visible: null },
        },
      ],
      visible: null,
      filter: null,
      sort: [],
      limit: 2,
      offset: 0,
      count: { total: false, filtered: false },
    });
    const shapes = new CompiledShapes();
    const old = shapes.list(request(before), TEST_SCHEMA);
    assert.is(
      (await store.list(request(before))).json,
      '[{"id":1,"shipment":{"number":"S-1"}},{"id":2,"shipment":{"number":"S-1"}}]',
    );

    await sql`alter table ${cargos} drop constraint cargos_shipment_foreign`.execute(db);
    await sql`alter table ${cargos} add constraint cargos_shipment_again foreign key (shipment) references ${shipments} (id)`.execute(
      db,
    );
    const after = await catalog.refresh();
    assert.is(manyToOneOf(after, 'cargos', 'shipment')?.constraint, 'cargos_shipment_again');
    const renewed = shapes.list(request(after), TEST_SCHEMA);
    assert.ok(renewed.name);
    assert.is.not(renewed.name, old.name, 'new collection objects, new shape');
    assert.is(
      (await store.list(request(after))).json,
      '[{"id":1,"shipment":{"number":"S-1"}},{"id":2,"shipment":{"number":"S-1"}}]',
    );
  });

  test('a foreign key dropped by hand under a prepared shape: right answers, then a stale schema', async ({
    db,
    catalog,
    store,
  }) => {
    const snapshot = await catalog.refresh();
    const request: ItemListRequest = {
      collection: snapshot.collections.get('shipments')!,
      select: [
        ...plain('id'),
        {
          field: 'customer',
          visibleWhen: null,
          nested: { hop: hopOf(snapshot, 'shipments', 'customer'), select: plain('name'), visible: null },
        },
      ],
      visible: null,
      filter: {
        kind: 'relation',
        hop: hopOf(snapshot, 'shipments', 'cargos'),
        quantifier: 'none',
        node: { kind: 'and', nodes: [] },
      },
      sort: [],
      limit: null,
      offset: 0,
      count: { total: false, filtered: false },
    };
    const expected = '[{"id":3,"customer":{"name":"Hidden"}},{"id":4,"customer":null}]';
    assert.is((await store.list(request)).json, expected);

    await sql`alter table ${shipments} drop constraint shipments_customer_foreign`.execute(db);
    await sql`insert into ${shipments} values (5, 'S-5', 99)`.execute(db);
    assert.is(
      (await store.list(request)).json,
      `${expected.slice(0, -1)},{"id":5,"customer":null}]`,
      'the missing row reads as null, as a many-to-one whose row is gone',
    );
    await sql`alter table ${customers} drop constraint customers_pkey`.execute(db);
    await sql`insert into ${customers} values (3, 'Hidden twin', 'secret')`.execute(db);
    const twins = JSON.parse((await store.list(request)).json) as Array<{
      customer: { name: string } | null;
    }>;
    assert.is(
      twins.length,
      3,
      'a referred key no longer unique still reads as one row, not a failed statement',
    );
    assert.match(twins[0]!.customer!.name, /^Hidden/);
    const refreshed = await catalog.refresh();
    assert.is(manyToOneOf(refreshed, 'shipments', 'customer'), undefined);

    await sql`alter table ${cargos} drop column shipment`.execute(db);
    const error = await store.list(request).then(
      () => assert.unreachable('expected a StaleSchemaError'),
      (caught: unknown) => caught,
    );
    assert.instance(error, StaleSchemaError, String(error));
  });

  test('estimated counts plan conditions across relations', async ({ catalog, store }) => {
    const snapshot = await catalog.refresh();
    const counted = await store.list({
      collection: snapshot.collections.get('shipments')!,
      select: plain('id'),
      visible: {
        kind: 'relation',
        hop: hopOf(snapshot, 'shipments', 'customer'),
        quantifier: 'some',
        node: cond('tier', '_neq', 'secret'),
      },
      filter: {
        kind: 'relation',
        hop: hopOf(snapshot, 'shipments', 'cargos'),
        quantifier: 'none',
        node: cond('weight', '_gt', 5),
      },
      sort: [],
      limit: 0,
      offset: 0,
      count: { total: true, filtered: true, estimatedTotal: true, estimatedFiltered: true },
    });
    assert.is(counted.totalCount, 2);
    assert.is(counted.filterCount, 0);
    assert.type(counted.estimatedTotalCount, 'number');
    assert.type(counted.estimatedFilterCount, 'number');
  });

  test.run();
}
