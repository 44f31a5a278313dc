import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type {
  ItemListRequest,
  NestedRead,
  SelectedField,
  SortKey,
} from '../../../../src/application/ports/item-store.ts';
import { DomainError } from '../../../../src/domain/errors.ts';
import { matchesFilter } from '../../../../src/domain/query/evaluate-filter.ts';
import type { BoundFilterNode, RelationCondition, ScalarValue } from '../../../../src/domain/query/filter.ts';
import type { RelationalHop } from '../../../../src/domain/query/relational-hop.ts';
import type { CollectionSchema } from '../../../../src/domain/schema/collection-schema.ts';
import { manyToOneOf, oneToManyOf } from '../../../../src/domain/schema/relations-of.ts';
import { type Collections, memoryCollections } from '../../../support/collections.ts';
import { listRequest } from '../../../support/list-request.ts';

/*
 * The in-memory twin's relational reads (docs/api.md §4): customers ← shipments ← cargos. The expected
 * texts are PostgreSQL's (compact objects and arrays, as the SQL store builds them);
 * tests/contracts/relational-reads.contract.ts holds the twin to the database itself.
 */

async function seeded(): Promise<Collections> {
  const collections = memoryCollections();
  const { editor } = collections;
  await editor.createCollection('customers', [
    { field: 'id', type: 'integer', isPrimaryKey: true },
    { field: 'name', type: 'string' },
  ]);
  await editor.createCollection('shipments', [
    { field: 'id', type: 'integer', isPrimaryKey: true },
    { field: 'number', type: 'string' },
    { field: 'customer', type: 'integer' },
  ]);
  await editor.createCollection('cargos', [
    { field: 'id', type: 'integer', isPrimaryKey: true },
    { field: 'label', type: 'string' },
    { field: 'weight', type: 'integer' },
    { field: 'shipment', type: 'integer' },
  ]);
  await editor.createRelation({ collection: 'shipments', field: 'customer', relatedCollection: 'customers' });
  await editor.createRelation({ collection: 'cargos', field: 'shipment', relatedCollection: 'shipments' });
  await collections.insertRows('customers', [
    { id: 1, name: 'ACME' },
    { id: 2, name: 'Globex' },
    { id: 3, name: 'Initech' },
  ]);
  await collections.insertRows('shipments', [
    { id: 10, number: 'S-10', customer: 1 },
    { id: 11, number: 'S-11', customer: 2 },
    { id: 12, number: 'S-12', customer: null },
    { id: 13, number: 'S-13', customer: 3 },
  ]);
  await collections.insertRows('cargos', [
    { id: 100, label: 'a', weight: 7, shipment: 10 },
    { id: 101, label: 'b', weight: 3, shipment: 10 },
    { id: 102, label: 'c', weight: 9, shipment: 11 },
    { id: 103, label: 'd', weight: null, shipment: 10 },
    { id: 104, label: 'e', weight: 1, shipment: null },
  ]);
  return collections;
}

const collectionOf = (collections: Collections, name: string): CollectionSchema =>
  collections.catalog.current().collections.get(name)!;

/** The hop from `collection` by `key`: a foreign-key field, or a one-to-many alias. */
function hop(collections: Collections, collection: string, key: string): RelationalHop {
  const snapshot = collections.catalog.current();
  const manyToOne = manyToOneOf(snapshot, collection, key);
  if (manyToOne) {
    return {
      key,
      direction: 'many-to-one',
      relation: manyToOne,
      collection: snapshot.collections.get(manyToOne.relatedCollection)!,
    };
  }
  const oneToMany = oneToManyOf(snapshot, collection, key)!;
  return {
    key,
    direction: 'one-to-many',
    relation: oneToMany,
    collection: snapshot.collections.get(oneToMany.collection)!,
  };
}

const plain = (...names: string[]): SelectedField[] => names.map((field) => ({ field, visibleWhen: null }));

function nested(
  collections: Collections,
  collection: string,
  key: string,
  read: Partial<NestedRead> & { select: ReadonlyArray<SelectedField> },
): SelectedField {
  return {
    field: key,
    visibleWhen: null,
    nested: { hop: hop(collections, collection, key), visible: null, ...read },
  };
}

const eq = (field: string, value: ScalarValue): BoundFilterNode => ({
  kind: 'condition',
  field,
  operator: '_eq',
  value,
});
const gt = (field: string, value: ScalarValue): BoundFilterNode => ({
  kind: 'condition',
  field,
  operator: '_gt',
  value,
});
const neq = (field: string, value: ScalarValue): BoundFilterNode => ({
  kind: 'condition',
  field,
  operator: '_neq',
  value,
});
const and = (...nodes: BoundFilterNode[]): BoundFilterNode => ({ kind: 'and', nodes });

function across(
  collections: Collections,
  collection: string,
  key: string,
  node: BoundFilterNode,
  quantifier: 'some' | 'none' = 'some',
): RelationCondition<ScalarValue> {
  return { kind: 'relation', hop: hop(collections, collection, key), quantifier, node };
}

function list(collections: Collections, collection: string, overrides: Partial<ItemListRequest>) {
  return collections.store.list(
    listRequest(collectionOf(collections, collection), { select: plain('id'), ...overrides }),
  );
}

async function json(collections: Collections, collection: string, overrides: Partial<ItemListRequest>) {
  return (await list(collections, collection, overrides)).json;
}

async function ids(collections: Collections, collection: string, overrides: Partial<ItemListRequest>) {
  return (JSON.parse(await json(collections, collection, overrides)) as Array<{ id: number }>).map(
    (item) => item.id,
  );
}

test('many-to-one: the related row as an object, null for a null key', async () => {
  const collections = await seeded();
  const answer = await json(collections, 'shipments', {
    select: [...plain('id'), nested(collections, 'shipments', 'customer', { select: plain('name', 'id') })],
  });
  assert.is(
    answer,
    '[{"id":10,"customer":{"name":"ACME","id":1}},{"id":11,"customer":{"name":"Globex","id":2}},' +
      '{"id":12,"customer":null},{"id":13,"customer":{"name":"Initech","id":3}}]',
  );
});

test('many-to-one: a row the caller may not read is null, and the mask of the key masks the object', async () => {
  const collections = await seeded();
  const customer = nested(collections, 'shipments', 'customer', {
    select: plain('name'),
    visible: neq('name', 'Initech'),
  });
  assert.is(
    await json(collections, 'shipments', { select: [...plain('id'), customer], filter: gt('id', 10) }),
    '[{"id":11,"customer":{"name":"Globex"}},{"id":12,"customer":null},{"id":13,"customer":null}]',
  );
  const masked = { ...customer, visibleWhen: eq('number', 'S-11') };
  assert.is(
    await json(collections, 'shipments', { select: [...plain('id'), masked], filter: gt('id', 11) }),
    '[{"id":12,"customer":null},{"id":13,"customer":null}]',
  );
  assert.is(
    await json(collections, 'shipments', { select: [masked], filter: eq('id', 11) }),
    '[{"customer":{"name":"Globex"}}]',
  );
});

test('one-to-many: arrays in primary-key order, [] when none, keys alone when asked', async () => {
  const collections = await seeded();
  assert.is(
    await json(collections, 'shipments', {
      select: [...plain('id'), nested(collections, 'shipments', 'cargos', { select: plain('id', 'label') })],
      limit: 3,
    }),
    '[{"id":10,"cargos":[{"id":100,"label":"a"},{"id":101,"label":"b"},{"id":103,"label":"d"}]},' +
      '{"id":11,"cargos":[{"id":102,"label":"c"}]},{"id":12,"cargos":[]}]',
  );
  assert.is(
    await json(collections, 'shipments', {
      select: [...plain('id'), nested(collections, 'shipments', 'cargos', { select: [], keysOnly: true })],
      limit: 2,
    }),
    '[{"id":10,"cargos":[100,101,103]},{"id":11,"cargos":[102]}]',
  );
});

test('one-to-many: hidden rows are absent; deep filter, sort, limit and offset apply after them', async () => {
  const collections = await seeded();
  const cargos = (read: Partial<NestedRead>) =>
    json(collections, 'shipments', {
      select: [nested(collections, 'shipments', 'cargos', { select: plain('label'), ...read })],
      filter: eq('id', 10),
    });
  assert.is(await cargos({ visible: neq('label', 'a') }), '[{"cargos":[{"label":"b"},{"label":"d"}]}]');
  assert.is(await cargos({ filter: gt('weight', 2) }), '[{"cargos":[{"label":"a"},{"label":"b"}]}]');
  const heaviest: SortKey[] = [{ field: 'weight', direction: 'desc' }];
  // PostgreSQL's null placement: first descending.
  assert.is(await cargos({ sort: heaviest }), '[{"cargos":[{"label":"d"},{"label":"a"},{"label":"b"}]}]');
  assert.is(await cargos({ sort: heaviest, limit: 1, offset: 1 }), '[{"cargos":[{"label":"a"}]}]');
  assert.is(await cargos({ sort: heaviest, offset: 5 }), '[{"cargos":[]}]');
  assert.is(
    await cargos({ visible: neq('label', 'd'), sort: heaviest, limit: 1 }),
    '[{"cargos":[{"label":"a"}]}]',
  );
});

test('two levels deep, both directions', async () => {
  const collections = await seeded();
  const customerName = nested(collections, 'shipments', 'customer', { select: plain('name') });
  assert.is(
    await json(collections, 'cargos', {
      select: [
        ...plain('id'),
        nested(collections, 'cargos', 'shipment', { select: [...plain('number'), customerName] }),
      ],
      limit: 3,
      filter: neq('id', 101),
    }),
    '[{"id":100,"shipment":{"number":"S-10","customer":{"name":"ACME"}}},' +
      '{"id":102,"shipment":{"number":"S-11","customer":{"name":"Globex"}}},' +
      '{"id":103,"shipment":{"number":"S-10","customer":{"name":"ACME"}}}]',
  );
  const cargoLabels = nested(collections, 'shipments', 'cargos', { select: plain('label'), limit: 1 });
  assert.is(
    await json(collections, 'customers', {
      select: [
        ...plain('id'),
        nested(collections, 'customers', 'shipments', { select: [...plain('number'), cargoLabels] }),
      ],
      limit: 2,
    }),
    '[{"id":1,"shipments":[{"number":"S-10","cargos":[{"label":"a"}]}]},' +
      '{"id":2,"shipments":[{"number":"S-11","cargos":[{"label":"c"}]}]}]',
  );
});

test('filters across relations: many-to-one paths, _some and _none, hidden rows matching nothing', async () => {
  const collections = await seeded();
  assert.equal(
    await ids(collections, 'shipments', {
      filter: across(collections, 'shipments', 'customer', eq('name', 'Globex')),
    }),
    [11],
  );
  const heavy = gt('weight', 5);
  assert.equal(
    await ids(collections, 'shipments', { filter: across(collections, 'shipments', 'cargos', heavy) }),
    [10, 11],
  );
  assert.equal(
    await ids(collections, 'shipments', {
      filter: across(collections, 'shipments', 'cargos', heavy, 'none'),
    }),
    [12, 13],
  );
  // The application ANDs the hop's read rule in: a hidden cargo never matches and never blocks.
  const visibleHeavy = and(heavy, neq('label', 'c'));
  assert.equal(
    await ids(collections, 'shipments', { filter: across(collections, 'shipments', 'cargos', visibleHeavy) }),
    [10],
  );
  assert.equal(
    await ids(collections, 'shipments', {
      filter: across(collections, 'shipments', 'cargos', visibleHeavy, 'none'),
    }),
    [11, 12, 13],
  );
  const twoHops = across(
    collections,
    'cargos',
    'shipment',
    across(collections, 'shipments', 'customer', eq('name', 'ACME')),
  );
  const counted = await list(collections, 'cargos', {
    filter: twoHops,
    count: { total: true, filtered: true },
  });
  assert.is(counted.json, '[{"id":100},{"id":101},{"id":103}]');
  assert.is(counted.totalCount, 5);
  assert.is(counted.filterCount, 3);
});

test('sort through many-to-one hops: hidden or missing related rows sort as null', async () => {
  const collections = await seeded();
  const shipment = hop(collections, 'cargos', 'shipment');
  const customer = hop(collections, 'shipments', 'customer');
  const byCustomer = (direction: 'asc' | 'desc', visible: BoundFilterNode | null = null): SortKey[] => [
    {
      field: 'name',
      direction,
      through: [
        { hop: shipment, visible: null },
        { hop: customer, visible },
      ],
    },
  ];
  assert.equal(await ids(collections, 'cargos', { sort: byCustomer('asc') }), [100, 101, 103, 102, 104]);
  assert.equal(await ids(collections, 'cargos', { sort: byCustomer('desc') }), [104, 102, 100, 101, 103]);
  assert.equal(
    await ids(collections, 'cargos', { sort: byCustomer('asc', neq('name', 'Globex')) }),
    [100, 101, 103, 102, 104],
  );
  assert.equal(
    await ids(collections, 'cargos', { sort: byCustomer('desc', neq('name', 'ACME')) }),
    [100, 101, 103, 104, 102],
  );
  // A related field named like the primary key does not stand for the tie-break on this one's key.
  const byShipmentId: SortKey[] = [
    { field: 'id', direction: 'desc', through: [{ hop: shipment, visible: null }] },
  ];
  assert.equal(await ids(collections, 'cargos', { sort: byShipmentId }), [104, 102, 100, 101, 103]);
});

test('get, getMany and a transaction read back nested parts, within the byte budget', async () => {
  const collections = await seeded();
  const shipments = collectionOf(collections, 'shipments');
  const select = [
    ...plain('id'),
    nested(collections, 'shipments', 'customer', { select: plain('name') }),
    nested(collections, 'shipments', 'cargos', { select: [], keysOnly: true }),
  ];
  const item = '{"id":10,"customer":{"name":"ACME"},"cargos":[100,101,103]}';
  assert.is(await collections.store.get({ collection: shipments, select, visible: null, id: 10 }), item);
  assert.equal(
    await collections.store.getMany({ collection: shipments, select, visible: null, keys: [12, 10] }),
    ['{"id":12,"customer":null,"cargos":[]}', item],
  );
  try {
    await collections.store.get({
      collection: shipments,
      select,
      visible: null,
      id: 10,
      maxBytes: item.length - 1,
    });
    assert.unreachable('over the budget');
  } catch (error) {
    assert.instance(error, DomainError);
    assert.equal((error as DomainError).extensions, { maxBytes: item.length - 1, bytes: item.length });
  }
  const cargos = collectionOf(collections, 'cargos');
  const readBack = await collections.store.write(async (writer) => {
    await writer.insert(cargos, [{ id: 105, label: 'f', shipment: 12 }]);
    return writer.getMany({ collection: shipments, select, visible: null, keys: [12] });
  });
  assert.equal(readBack, ['{"id":12,"customer":null,"cargos":[105]}']);
});

test('nested values are written as top-level ones: jsonb in its own layout', async () => {
  const collections = memoryCollections();
  await collections.editor.createCollection('docs', [
    { field: 'id', type: 'integer', isPrimaryKey: true },
    { field: 'doc', type: 'json' },
  ]);
  await collections.editor.createCollection('notes', [
    { field: 'id', type: 'integer', isPrimaryKey: true },
    { field: 'doc', type: 'integer' },
  ]);
  await collections.editor.createRelation({ collection: 'notes', field: 'doc', relatedCollection: 'docs' });
  await collections.insertRows('docs', [{ id: 1, doc: { b: [1e-7, 'x'], a: {} } }]);
  await collections.insertRows('notes', [{ id: 7, doc: 1 }]);
  const doc = '{"a": {}, "b": [0.0000001, "x"]}';
  assert.is(
    await json(collections, 'notes', {
      select: [...plain('id'), nested(collections, 'notes', 'doc', { select: plain('doc') })],
    }),
    `[{"id":7,"doc":{"doc":${doc}}}]`,
  );
  assert.is(
    await json(collections, 'docs', {
      select: [...plain('doc'), nested(collections, 'docs', 'notes', { select: plain('id') })],
    }),
    `[{"doc":${doc},"notes":[{"id":7}]}]`,
  );
});

test('aggregates count the rows a condition across a relation selects', async () => {
  const collections = await seeded();
  const answer = await collections.store.aggregate({
    collection: collectionOf(collections, 'cargos'),
    aggregates: [{ fn: 'count', field: null }],
    groupBy: [],
    visible: null,
    filter: across(
      collections,
      'cargos',
      'shipment',
      across(collections, 'shipments', 'customer', eq('name', 'ACME')),
    ),
    sort: [],
    limit: null,
    offset: 0,
  });
  assert.equal(JSON.parse(answer), [{ count: 3 }]);
});

test('matchesFilter without related rows refuses a relation node', async () => {
  const collections = await seeded();
  const node = across(collections, 'shipments', 'cargos', gt('weight', 5));
  assert.throws(() => matchesFilter(node, { id: 10 }, collectionOf(collections, 'shipments')));
  assert.ok(matchesFilter(node, { id: 10 }, collectionOf(collections, 'shipments'), () => [{ weight: 6 }]));
});

test('seeding rows that point nowhere is refused, as the database would', async () => {
  const collections = await seeded();
  try {
    await collections.insertRows('cargos', [{ id: 200, shipment: 99 }]);
    assert.unreachable('seeded a dangling reference');
  } catch (error) {
    assert.instance(error, DomainError);
    assert.is((error as DomainError).extensions.field, 'shipment');
  }
});

test.run();
