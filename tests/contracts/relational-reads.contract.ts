import * as assert from 'uvu/assert';
import type {
  ItemListRequest,
  NestedRead,
  SelectedField,
  SortKey,
} from '../../src/application/ports/item-store.ts';
import { DomainError } from '../../src/domain/errors.ts';
import type { BoundFilterNode, Condition, ScalarValue } from '../../src/domain/query/filter.ts';
import type { RelationalHop } from '../../src/domain/query/relational-hop.ts';
import type { CollectionSchema, SchemaSnapshot } from '../../src/domain/schema/collection-schema.ts';
import { manyToOneOf, oneToManyOf } from '../../src/domain/schema/relations-of.ts';
import type { Collections } from '../support/collections.ts';
import type { CollectionsTarget } from '../support/databases.ts';
import { EVERY_COLUMN_TYPE } from '../support/every-column-type.ts';
import { skippableSuite } from '../support/skippable-suite.ts';

type Context = { collections: Collections };

const cond = (field: string, operator: Condition['operator'], value?: unknown): BoundFilterNode => {
  if (value === undefined) return { kind: 'condition', field, operator } as Condition<ScalarValue>;
  if (Array.isArray(value))
    return { kind: 'condition', field, operator, values: value } as Condition<ScalarValue>;
  return { kind: 'condition', field, operator, value } as Condition<ScalarValue>;
};
const and = (...nodes: BoundFilterNode[]): BoundFilterNode => ({ kind: 'and', nodes });

const plain = (...names: string[]): SelectedField[] => names.map((field) => ({ field, visibleWhen: null }));

/** The hop from `collection` through `key`: a foreign-key field (many-to-one) or a one-to-many alias. */
function hopOf(snapshot: SchemaSnapshot, collection: string, key: string): RelationalHop {
  const manyToOne = manyToOneOf(snapshot, collection, key);
  if (manyToOne) {
    return {
      key,
      direction: 'many-to-one',
      relation: manyToOne,
      collection: snapshot.collections.get(manyToOne.relatedCollection)!,
    };
  }
  const oneToMany = oneToManyOf(snapshot, collection, key);
  if (!oneToMany) throw new Error(`No relation ${collection}.${key}`);
  return {
    key,
    direction: 'one-to-many',
    relation: oneToMany,
    collection: snapshot.collections.get(oneToMany.collection)!,
  };
}

/** Customers see every tier but `secret`; cargos above 10 kg are hidden. */
const CUSTOMER_RULE = cond('tier', '_neq', 'secret');
const CARGO_RULE = cond('weight', '_lte', 10);

/**
 * Relational reads as the store receives them, fully decided by the application (RELATIONS semantics,
 * docs/api.md §4): nested many-to-one objects and one-to-many arrays, conditions across relations, sorts
 * through hops, each hop with the caller's rule on its collection.
 */
export function relationalReadsContract(target: CollectionsTarget) {
  const test = skippableSuite<Context>(`relational reads on ${target.name}`, target.skip);

  test.before.each(async (context) => {
    context.collections = await target.fresh();
    const { editor, insertRows } = context.collections;
    await editor.createCollection('customers', [
      { field: 'id', type: 'integer', isPrimaryKey: true },
      { field: 'name', type: 'string' },
      { field: 'tier', type: 'string' },
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
    await editor.createRelation({
      collection: 'shipments',
      field: 'customer',
      relatedCollection: 'customers',
    });
    await editor.createRelation({ collection: 'cargos', field: 'shipment', relatedCollection: 'shipments' });
    await insertRows('customers', [
      { id: 1, name: 'ACME', tier: 'gold' },
      { id: 2, name: 'Globex', tier: 'silver' },
      { id: 3, name: 'Hidden Co', tier: 'secret' },
    ]);
    await insertRows('shipments', [
      { id: 1, number: 'S-1', customer: 1 },
      { id: 2, number: 'S-2', customer: 2 },
      { id: 3, number: 'S-3', customer: null },
      { id: 4, number: 'S-4', customer: 3 },
      { id: 5, number: 'S-5', customer: 1 },
    ]);
    await insertRows('cargos', [
      { id: 1, label: 'a', weight: 3, shipment: 1 },
      { id: 2, label: 'b', weight: 7, shipment: 1 },
      { id: 3, label: 'c', weight: 9, shipment: 1 },
      { id: 4, label: 'd', weight: 1, shipment: 2 },
      { id: 5, label: 'e', weight: 12, shipment: 2 },
      { id: 6, label: 'f', weight: 5, shipment: null },
    ]);
  });
  test.after(() => target.dispose());

  const snapshotOf = (collections: Collections) => collections.catalog.current();
  const collectionOf = (collections: Collections, name: string): CollectionSchema =>
    snapshotOf(collections).collections.get(name)!;

  function listOf(collection: CollectionSchema, overrides: Partial<ItemListRequest> = {}): ItemListRequest {
    return {
      collection,
      select: plain('id'),
      visible: null,
      filter: null,
      sort: [],
      limit: null,
      offset: 0,
      count: { total: false, filtered: false },
      ...overrides,
    };
  }

  async function list(collections: Collections, request: ItemListRequest): Promise<unknown> {
    return JSON.parse((await collections.store.list(request)).json);
  }

  const ids = async (collections: Collections, request: ItemListRequest) =>
    ((await list(collections, request)) as Array<{ id: number }>).map(({ id }) => id);

  function customerOf(collections: Collections, select: SelectedField[]): NestedRead {
    return { hop: hopOf(snapshotOf(collections), 'shipments', 'customer'), select, visible: CUSTOMER_RULE };
  }

  function cargosOf(collections: Collections, read: Partial<NestedRead> = {}): NestedRead {
    return {
      hop: hopOf(snapshotOf(collections), 'shipments', 'cargos'),
      select: plain('label'),
      visible: CARGO_RULE,
      ...read,
    };
  }

  test('a many-to-one reads as the related object, or null when the key is null or the row hidden', async ({
    collections,
  }) => {
    const shipments = collectionOf(collections, 'shipments');
    const select: SelectedField[] = [
      ...plain('id'),
      { field: 'customer', visibleWhen: null, nested: customerOf(collections, plain('name', 'id')) },
      ...plain('number'),
    ];
    assert.equal(await list(collections, listOf(shipments, { select })), [
      { id: 1, customer: { name: 'ACME', id: 1 }, number: 'S-1' },
      { id: 2, customer: { name: 'Globex', id: 2 }, number: 'S-2' },
      { id: 3, customer: null, number: 'S-3' },
      { id: 4, customer: null, number: 'S-4' },
      { id: 5, customer: { name: 'ACME', id: 1 }, number: 'S-5' },
    ]);
  });

  test('masks hold at every hop: the foreign key as a whole, and fields of the related row', async ({
    collections,
  }) => {
    const shipments = collectionOf(collections, 'shipments');
    const nested = customerOf(collections, [
      { field: 'name', visibleWhen: cond('tier', '_eq', 'gold') },
      ...plain('tier'),
    ]);
    const select: SelectedField[] = [
      ...plain('id'),
      { field: 'customer', visibleWhen: cond('id', '_lt', 5), nested },
    ];
    assert.equal(
      await list(collections, listOf(shipments, { select, filter: cond('id', '_in', [1, 2, 5]) })),
      [
        { id: 1, customer: { name: 'ACME', tier: 'gold' } },
        { id: 2, customer: { name: null, tier: 'silver' } },
        { id: 5, customer: null },
      ],
    );
  });

  test('a one-to-many reads as the array of visible related rows in key order, [] when none', async ({
    collections,
  }) => {
    const shipments = collectionOf(collections, 'shipments');
    const select: SelectedField[] = [
      ...plain('id'),
      {
        field: 'cargos',
        visibleWhen: null,
        nested: cargosOf(collections, { select: plain('label', 'weight') }),
      },
    ];
    assert.is(
      (await collections.store.list(listOf(shipments, { select, limit: 2, offset: 1 }))).json,
      '[{"id":2,"cargos":[{"label":"d","weight":1}]},{"id":3,"cargos":[]}]',
      'nested arrays written as compactly as the page',
    );
    assert.equal(await list(collections, listOf(shipments, { select, limit: 3 })), [
      {
        id: 1,
        cargos: [
          { label: 'a', weight: 3 },
          { label: 'b', weight: 7 },
          { label: 'c', weight: 9 },
        ],
      },
      { id: 2, cargos: [{ label: 'd', weight: 1 }] },
      { id: 3, cargos: [] },
    ]);
  });

  test('a one-to-many takes its own filter, sort, limit and offset, or answers keys only', async ({
    collections,
  }) => {
    const shipments = collectionOf(collections, 'shipments');
    const sorted = cargosOf(collections, {
      filter: cond('weight', '_gt', 3),
      sort: [{ field: 'weight', direction: 'desc' }],
      limit: 1,
      offset: 1,
    });
    const keys = cargosOf(collections, {
      select: [],
      keysOnly: true,
      sort: [{ field: 'label', direction: 'desc' }],
    });
    const everything = cargosOf(collections, { visible: null, limit: 2 });
    const select: SelectedField[] = [...plain('id'), { field: 'cargos', visibleWhen: null, nested: sorted }];
    const request = listOf(shipments, { select, filter: cond('id', '_lte', 2) });
    assert.equal(await list(collections, request), [
      { id: 1, cargos: [{ label: 'b' }] },
      { id: 2, cargos: [] },
    ]);
    const keysRequest = listOf(shipments, {
      select: [{ field: 'cargos', visibleWhen: null, nested: keys }],
      filter: cond('id', '_lte', 3),
    });
    assert.equal(await list(collections, keysRequest), [
      { cargos: [3, 2, 1] },
      { cargos: [4] },
      { cargos: [] },
    ]);
    const limited = listOf(shipments, {
      select: [{ field: 'cargos', visibleWhen: null, nested: everything }],
      filter: cond('id', '_eq', 2),
    });
    assert.equal(await list(collections, limited), [{ cargos: [{ label: 'd' }, { label: 'e' }] }]);
  });

  test('a keyset page expands relations as a plain page does', async ({ collections }) => {
    const shipments = collectionOf(collections, 'shipments');
    const select: SelectedField[] = [
      ...plain('id'),
      { field: 'customer', visibleWhen: null, nested: customerOf(collections, plain('name')) },
      { field: 'cargos', visibleWhen: null, nested: cargosOf(collections, { select: [], keysOnly: true }) },
    ];
    const page = await collections.store.list(
      listOf(shipments, { select, limit: 2, after: cond('id', '_gt', 1), lastRowFields: ['id'] }),
    );
    assert.is(
      page.json,
      '[{"id":2,"customer":{"name":"Globex"},"cargos":[4]},{"id":3,"customer":null,"cargos":[]}]',
    );
    assert.equal(page.lastRow, { id: 3 });
  });

  test('two levels deep in both directions', async ({ collections }) => {
    const snapshot = snapshotOf(collections);
    const cargos = collectionOf(collections, 'cargos');
    const shipment: NestedRead = {
      hop: hopOf(snapshot, 'cargos', 'shipment'),
      visible: null,
      select: [
        ...plain('number'),
        { field: 'customer', visibleWhen: null, nested: customerOf(collections, plain('name')) },
      ],
    };
    assert.equal(
      await list(
        collections,
        listOf(cargos, {
          select: [...plain('id'), { field: 'shipment', visibleWhen: null, nested: shipment }],
        }),
      ),
      [
        { id: 1, shipment: { number: 'S-1', customer: { name: 'ACME' } } },
        { id: 2, shipment: { number: 'S-1', customer: { name: 'ACME' } } },
        { id: 3, shipment: { number: 'S-1', customer: { name: 'ACME' } } },
        { id: 4, shipment: { number: 'S-2', customer: { name: 'Globex' } } },
        { id: 5, shipment: { number: 'S-2', customer: { name: 'Globex' } } },
        { id: 6, shipment: null },
      ],
    );
    const customers = collectionOf(collections, 'customers');
    const shipments: NestedRead = {
      hop: hopOf(snapshot, 'customers', 'shipments'),
      visible: cond('id', '_neq', 5),
      select: [
        ...plain('number'),
        { field: 'cargos', visibleWhen: null, nested: cargosOf(collections, { select: [], keysOnly: true }) },
      ],
    };
    assert.equal(
      await list(
        collections,
        listOf(customers, {
          select: [...plain('name'), { field: 'shipments', visibleWhen: null, nested: shipments }],
        }),
      ),
      [
        { name: 'ACME', shipments: [{ number: 'S-1', cargos: [1, 2, 3] }] },
        { name: 'Globex', shipments: [{ number: 'S-2', cargos: [4] }] },
        { name: 'Hidden Co', shipments: [{ number: 'S-4', cargos: [] }] },
      ],
    );
  });

  test('conditions across relations: many-to-one, some and none, hidden rows never match nor block', async ({
    collections,
  }) => {
    const snapshot = snapshotOf(collections);
    const shipments = collectionOf(collections, 'shipments');
    const customer = hopOf(snapshot, 'shipments', 'customer');
    const cargos = hopOf(snapshot, 'shipments', 'cargos');
    const related = (
      hop: RelationalHop,
      quantifier: 'some' | 'none',
      rule: BoundFilterNode,
      node: BoundFilterNode,
    ): BoundFilterNode => ({ kind: 'relation', hop, quantifier, node: and(rule, node) });
    const filtered = (filter: BoundFilterNode) => ids(collections, listOf(shipments, { filter }));

    assert.equal(
      await filtered(related(customer, 'some', CUSTOMER_RULE, cond('name', '_eq', 'ACME'))),
      [1, 5],
    );
    assert.equal(
      await filtered(related(customer, 'some', CUSTOMER_RULE, cond('name', '_eq', 'Hidden Co'))),
      [],
    );
    assert.equal(await filtered(related(cargos, 'some', CARGO_RULE, cond('weight', '_gt', 8))), [1]);
    assert.equal(await filtered(related(cargos, 'some', CARGO_RULE, cond('weight', '_gt', 10))), []);
    assert.equal(await filtered(related(cargos, 'none', CARGO_RULE, cond('weight', '_gt', 8))), [2, 3, 4, 5]);
    assert.equal(
      await filtered(related(cargos, 'none', CARGO_RULE, cond('weight', '_gt', 10))),
      [1, 2, 3, 4, 5],
    );
    assert.equal(await filtered(related(cargos, 'none', CARGO_RULE, and())), [3, 4, 5]);

    const cargosCollection = collectionOf(collections, 'cargos');
    const throughShipment: BoundFilterNode = {
      kind: 'relation',
      hop: hopOf(snapshot, 'cargos', 'shipment'),
      quantifier: 'some',
      node: related(customer, 'some', CUSTOMER_RULE, cond('name', '_eq', 'ACME')),
    };
    assert.equal(await ids(collections, listOf(cargosCollection, { filter: throughShipment })), [1, 2, 3]);
    const counted = await collections.store.list(
      listOf(shipments, {
        filter: related(cargos, 'some', CARGO_RULE, and()),
        visible: related(customer, 'some', CUSTOMER_RULE, and()),
        count: { total: true, filtered: true },
      }),
    );
    assert.is(counted.totalCount, 3);
    assert.is(counted.filterCount, 2);
  });

  test('a sort through many-to-one hops puts a hidden related row where a null goes', async ({
    collections,
  }) => {
    const snapshot = snapshotOf(collections);
    const shipments = collectionOf(collections, 'shipments');
    const byCustomer = (direction: 'asc' | 'desc'): SortKey[] => [
      {
        field: 'name',
        direction,
        through: [{ hop: hopOf(snapshot, 'shipments', 'customer'), visible: CUSTOMER_RULE }],
      },
    ];
    assert.equal(await ids(collections, listOf(shipments, { sort: byCustomer('asc') })), [1, 5, 2, 3, 4]);
    assert.equal(await ids(collections, listOf(shipments, { sort: byCustomer('desc') })), [3, 4, 2, 1, 5]);
    assert.equal(
      await ids(collections, listOf(shipments, { sort: byCustomer('desc'), limit: 2, offset: 2 })),
      [2, 1],
    );

    const cargos = collectionOf(collections, 'cargos');
    const twoHops: SortKey[] = [
      {
        field: 'name',
        direction: 'desc',
        through: [
          { hop: hopOf(snapshot, 'cargos', 'shipment'), visible: cond('id', '_neq', 2) },
          { hop: hopOf(snapshot, 'shipments', 'customer'), visible: CUSTOMER_RULE },
        ],
      },
      { field: 'weight', direction: 'desc' },
    ];
    assert.equal(await ids(collections, listOf(cargos, { sort: twoHops })), [5, 6, 4, 3, 2, 1]);
  });

  test('the byte budget counts nested parts', async ({ collections }) => {
    const shipments = collectionOf(collections, 'shipments');
    const select: SelectedField[] = [
      ...plain('id'),
      { field: 'cargos', visibleWhen: null, nested: cargosOf(collections) },
      { field: 'customer', visibleWhen: null, nested: customerOf(collections, plain('name')) },
    ];
    const request = listOf(shipments, { select });
    const json = (await collections.store.list(request)).json;
    const size = Buffer.byteLength(json);
    assert.is((await collections.store.list({ ...request, maxBytes: size })).json, json);
    try {
      await collections.store.list({ ...request, maxBytes: size - 1 });
      assert.unreachable('expected RESPONSE_TOO_LARGE');
    } catch (error) {
      assert.instance(error, DomainError);
      assert.equal((error as DomainError).extensions, { maxBytes: size - 1, bytes: size });
    }
    const got = await collections.store.get({
      collection: shipments,
      select,
      visible: null,
      id: 1,
      maxBytes: 1000,
    });
    const gotSize = Buffer.byteLength(got!);
    try {
      await collections.store.get({
        collection: shipments,
        select,
        visible: null,
        id: 1,
        maxBytes: gotSize - 1,
      });
      assert.unreachable('expected RESPONSE_TOO_LARGE');
    } catch (error) {
      assert.instance(error, DomainError);
      assert.equal((error as DomainError).extensions, { maxBytes: gotSize - 1, bytes: gotSize });
    }
  });

  test('get and getMany expand relations as list does', async ({ collections }) => {
    const shipments = collectionOf(collections, 'shipments');
    const select: SelectedField[] = [
      ...plain('number'),
      { field: 'customer', visibleWhen: null, nested: customerOf(collections, plain('name')) },
      { field: 'cargos', visibleWhen: null, nested: cargosOf(collections, { keysOnly: true, select: [] }) },
    ];
    const got = await collections.store.get({ collection: shipments, select, visible: null, id: 1 });
    assert.is(
      got,
      '{"number":"S-1","customer":{"name":"ACME"},"cargos":[1,2,3]}',
      'written as compactly as the rest',
    );
    const many = await collections.store.getMany({
      collection: shipments,
      select,
      visible: null,
      keys: [4, 1, 4],
    });
    assert.equal(
      many.map((item) => JSON.parse(item)),
      [
        { number: 'S-4', customer: null, cargos: [] },
        { number: 'S-1', customer: { name: 'ACME' }, cargos: [1, 2, 3] },
        { number: 'S-4', customer: null, cargos: [] },
      ],
    );
    const written = await collections.store.write((writer) =>
      writer.getMany({ collection: shipments, select, visible: null, keys: [5] }),
    );
    assert.equal(JSON.parse(written[0]!), { number: 'S-5', customer: { name: 'ACME' }, cargos: [] });
  });

  test('a self-referencing relation, in both directions and in filters', async ({ collections }) => {
    const { editor, insertRows } = collections;
    await editor.createCollection('nodes', [
      { field: 'id', type: 'integer', isPrimaryKey: true },
      { field: 'name', type: 'string' },
      { field: 'parent', type: 'integer' },
    ]);
    const relation = await editor.createRelation({
      collection: 'nodes',
      field: 'parent',
      relatedCollection: 'nodes',
    });
    await insertRows('nodes', [
      { id: 1, name: 'root', parent: null },
      { id: 2, name: 'left', parent: 1 },
      { id: 3, name: 'right', parent: 1 },
      { id: 4, name: 'leaf', parent: 2 },
    ]);
    const snapshot = snapshotOf(collections);
    const nodes = collectionOf(collections, 'nodes');
    const children = relation.oneField!;
    const parent = hopOf(snapshot, 'nodes', 'parent');
    const select: SelectedField[] = [
      ...plain('name'),
      { field: 'parent', visibleWhen: null, nested: { hop: parent, visible: null, select: plain('name') } },
      {
        field: children,
        visibleWhen: null,
        nested: { hop: hopOf(snapshot, 'nodes', children), visible: null, select: plain('name') },
      },
    ];
    assert.equal(await list(collections, listOf(nodes, { select })), [
      { name: 'root', parent: null, [children]: [{ name: 'left' }, { name: 'right' }] },
      { name: 'left', parent: { name: 'root' }, [children]: [{ name: 'leaf' }] },
      { name: 'right', parent: { name: 'root' }, [children]: [] },
      { name: 'leaf', parent: { name: 'left' }, [children]: [] },
    ]);
    const grandchildOfRoot: BoundFilterNode = {
      kind: 'relation',
      hop: parent,
      quantifier: 'some',
      node: { kind: 'relation', hop: parent, quantifier: 'some', node: cond('name', '_eq', 'root') },
    };
    assert.equal(await ids(collections, listOf(nodes, { filter: grandchildOfRoot })), [4]);
    const leaves: BoundFilterNode = {
      kind: 'relation',
      hop: hopOf(snapshot, 'nodes', children),
      quantifier: 'none',
      node: and(),
    };
    assert.equal(await ids(collections, listOf(nodes, { filter: leaves })), [3, 4]);
    const byParent: SortKey[] = [
      { field: 'name', direction: 'asc', through: [{ hop: parent, visible: null }] },
    ];
    assert.equal(await ids(collections, listOf(nodes, { sort: byParent })), [4, 2, 3, 1]);
  });

  test('names that need quoting, on both sides of a relation', async ({ collections }) => {
    const { editor, insertRows } = collections;
    await editor.createCollection('User', [
      { field: 'Order', type: 'integer', isPrimaryKey: true },
      { field: 'select', type: 'string' },
    ]);
    await editor.createCollection('Group', [
      { field: 'id', type: 'integer', isPrimaryKey: true },
      { field: 'user', type: 'integer' },
    ]);
    const relation = await editor.createRelation({
      collection: 'Group',
      field: 'user',
      relatedCollection: 'User',
    });
    await insertRows('User', [
      { Order: 1, select: 'one' },
      { Order: 2, select: 'two' },
    ]);
    await insertRows('Group', [
      { id: 10, user: 2 },
      { id: 11, user: 2 },
      { id: 12, user: 1 },
    ]);
    const snapshot = snapshotOf(collections);
    const groups = collectionOf(collections, 'Group');
    const user = hopOf(snapshot, 'Group', 'user');
    const select: SelectedField[] = [
      ...plain('id'),
      { field: 'user', visibleWhen: null, nested: { hop: user, visible: null, select: plain('select') } },
    ];
    const filter: BoundFilterNode = {
      kind: 'relation',
      hop: user,
      quantifier: 'some',
      node: cond('select', '_eq', 'two'),
    };
    const sort: SortKey[] = [{ field: 'select', direction: 'asc', through: [{ hop: user, visible: null }] }];
    assert.equal(
      await list(
        collections,
        listOf(groups, { select, filter, sort: [...sort, { field: 'id', direction: 'desc' }] }),
      ),
      [
        { id: 11, user: { select: 'two' } },
        { id: 10, user: { select: 'two' } },
      ],
    );
    const users = collectionOf(collections, 'User');
    const oneField = relation.oneField!;
    const read: NestedRead = {
      hop: hopOf(snapshot, 'User', oneField),
      visible: null,
      select: [],
      keysOnly: true,
    };
    assert.equal(
      await list(
        collections,
        listOf(users, { select: [...plain('Order'), { field: oneField, visibleWhen: null, nested: read }] }),
      ),
      [
        { Order: 1, [oneField]: [12] },
        { Order: 2, [oneField]: [10, 11] },
      ],
    );
  });

  test('values of every type read nested exactly as at the top level', async ({ collections }) => {
    const { editor, insertRows } = collections;
    await editor.createCollection('typed', EVERY_COLUMN_TYPE);
    await editor.createCollection('holders', [
      { field: 'id', type: 'integer', isPrimaryKey: true },
      { field: 'value', type: 'integer' },
    ]);
    const relation = await editor.createRelation({
      collection: 'holders',
      field: 'value',
      relatedCollection: 'typed',
    });
    await insertRows('typed', [
      {
        id: 1,
        key: '0190a000-0000-7000-8000-000000000001',
        label: 'Ünïcødé ✓ 𝄞',
        body: 'line\nbreak "quoted" \\ back',
        small: -3,
        big: '9007199254740993',
        ratio: 1.5,
        price: '0.1',
        flag: true,
        at: '2024-01-02T03:04:05.25',
        instant: '2024-01-02T03:04:05+02:00',
        day: '2024-02-29',
        clock: '13:01:02',
        doc: { b: 1, a: [1, { c: null }], s: 'x' },
      },
      { id: 2, big: '-9007199254740991', price: '123456789012345678901234567890', doc: 42 },
    ]);
    await insertRows('holders', [
      { id: 1, value: 1 },
      { id: 2, value: 2 },
      { id: 3, value: 1 },
    ]);
    const snapshot = snapshotOf(collections);
    const typed = collectionOf(collections, 'typed');
    const every = plain(...EVERY_COLUMN_TYPE.map(({ field }) => field));
    const flat = JSON.parse(
      (await collections.store.list(listOf(typed, { select: every }))).json,
    ) as unknown[];
    const holders = collectionOf(collections, 'holders');
    const nested = await list(
      collections,
      listOf(holders, {
        select: [
          {
            field: 'value',
            visibleWhen: null,
            nested: { hop: hopOf(snapshot, 'holders', 'value'), visible: null, select: every },
          },
        ],
      }),
    );
    assert.equal(nested, [{ value: flat[0] }, { value: flat[1] }, { value: flat[0] }]);
    const oneField = relation.oneField!;
    const many = await list(
      collections,
      listOf(typed, {
        select: [
          ...plain('big'),
          {
            field: oneField,
            visibleWhen: null,
            nested: { hop: hopOf(snapshot, 'typed', oneField), visible: null, select: plain('id') },
          },
        ],
      }),
    );
    assert.equal(many, [
      { big: '9007199254740993', [oneField]: [{ id: 1 }, { id: 3 }] },
      { big: -9007199254740991, [oneField]: [{ id: 2 }] },
    ]);
  });

  return test;
}
