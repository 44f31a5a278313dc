import * as assert from 'uvu/assert';
import type { ItemWriter, StoredItem } from '../../src/application/ports/item-store.ts';
import type { NewRelation } from '../../src/application/ports/schema-catalog.ts';
import { DomainError } from '../../src/domain/errors.ts';
import { type Referrers, StillReferenced } from '../../src/domain/items/still-referenced.ts';
import type { CollectionSchema } from '../../src/domain/schema/collection-schema.ts';
import type { Collections } from '../support/collections.ts';
import type { CollectionsTarget } from '../support/databases.ts';
import { skippableSuite } from '../support/skippable-suite.ts';

type Context = { collections: Collections };

/**
 * Foreign keys under ItemWriter, every backend alike: PostgreSQL enforces them, and the in-memory twin
 * must refuse and cascade exactly as it does (same DomainErrors, same rows left), within the
 * transaction's all-or-nothing.
 */
export function foreignKeyWritesContract(target: CollectionsTarget) {
  const test = skippableSuite<Context>(`foreign-key writes on ${target.name}`, target.skip);
  test.before.each(async (context) => {
    context.collections = await target.fresh();
    const { editor } = context.collections;
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
      { field: 'shipment', type: 'integer' },
    ]);
  });
  test.after(() => target.dispose());

  const schema = (collections: Collections, name: string): CollectionSchema =>
    collections.catalog.current().collections.get(name)!;

  /** Creates the relations, then seeds customers 1–2, shipments 10 (→1), 11 (→1), 12 (→2), cargos 100 (→10), 101 (→11). */
  async function seeded(collections: Collections, ...relations: NewRelation[]) {
    for (const relation of relations) await collections.editor.createRelation(relation);
    await collections.insertRows('customers', [
      { id: 1, name: 'ACME' },
      { id: 2, name: 'Globex' },
    ]);
    await collections.insertRows('shipments', [
      { id: 10, number: 'S-10', customer: 1 },
      { id: 11, number: 'S-11', customer: 1 },
      { id: 12, number: 'S-12', customer: 2 },
    ]);
    await collections.insertRows('cargos', [
      { id: 100, label: 'a', shipment: 10 },
      { id: 101, label: 'b', shipment: 11 },
    ]);
    return {
      customers: schema(collections, 'customers'),
      shipments: schema(collections, 'shipments'),
      cargos: schema(collections, 'cargos'),
    };
  }

  const shipmentCustomer = (onDelete?: NewRelation['onDelete'], onUpdate?: NewRelation['onUpdate']) => ({
    collection: 'shipments',
    field: 'customer',
    relatedCollection: 'customers',
    ...(onDelete ? { onDelete } : {}),
    ...(onUpdate ? { onUpdate } : {}),
  });
  const cargoShipment = (onDelete?: NewRelation['onDelete']) => ({
    collection: 'cargos',
    field: 'shipment',
    relatedCollection: 'shipments',
    ...(onDelete ? { onDelete } : {}),
  });

  const write = <T>(collections: Collections, work: (writer: ItemWriter) => Promise<T>) =>
    collections.store.write(work);

  /** Committed rows in key order, as plain objects. */
  const rows = async (collections: Collections, collection: CollectionSchema) =>
    (await write(collections, (writer) => writer.lockMatching(collection, null))).map((row: StoredItem) => ({
      ...row,
    }));

  async function refusal(promise: Promise<unknown>): Promise<DomainError> {
    try {
      await promise;
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      return error;
    }
    throw new assert.Assertion({ message: 'expected a refusal, but the write succeeded' } as never);
  }

  async function missing(promise: Promise<unknown>, field: string) {
    const error = await refusal(promise);
    assert.not.instance(error, StillReferenced);
    assert.is(error.code, 'FAILED_VALIDATION');
    assert.is(error.extensions.field, field);
    assert.is(error.message, `The value of "${field}" refers to an item that does not exist.`);
  }

  async function stillReferenced(promise: Promise<unknown>, referrers: Referrers) {
    const error = await refusal(promise);
    assert.instance(error, StillReferenced);
    assert.is(error.code, 'FAILED_VALIDATION');
    assert.equal((error as StillReferenced).referrers, referrers);
  }

  const SHIPMENTS_TO_CUSTOMERS: Referrers = {
    collection: 'shipments',
    columns: ['customer'],
    referenced: { collection: 'customers', columns: ['id'] },
  };
  const CARGOS_TO_SHIPMENTS: Referrers = {
    collection: 'cargos',
    columns: ['shipment'],
    referenced: { collection: 'shipments', columns: ['id'] },
  };

  test('an insert pointing nowhere is refused naming the field, and writes nothing', async ({
    collections,
  }) => {
    const { shipments } = await seeded(collections, shipmentCustomer());
    await missing(
      write(collections, (writer) =>
        writer.insert(shipments, [
          { id: 20, number: 'S-20', customer: 1 },
          { id: 21, number: 'S-21', customer: 99 },
        ]),
      ),
      'customer',
    );
    assert.equal(
      (await rows(collections, shipments)).map((row) => row.id),
      [10, 11, 12],
    );
  });

  test('a null foreign key, or one pointing at an existing row, is written', async ({ collections }) => {
    const { shipments } = await seeded(collections, shipmentCustomer());
    await write(collections, (writer) =>
      writer.insert(shipments, [
        { id: 20, number: 'S-20', customer: null },
        { id: 21, number: 'S-21' },
        { id: 22, number: 'S-22', customer: 2 },
      ]),
    );
    assert.equal(
      (await rows(collections, shipments)).map((row) => [row.id, row.customer]),
      [
        [10, 1],
        [11, 1],
        [12, 2],
        [20, null],
        [21, null],
        [22, 2],
      ],
    );
  });

  test('an update pointing nowhere is refused naming the field', async ({ collections }) => {
    const { shipments } = await seeded(collections, shipmentCustomer());
    await missing(
      write(collections, (writer) => writer.update(shipments, [10, 11], { customer: 3 })),
      'customer',
    );
    await write(collections, (writer) => writer.update(shipments, [10], { customer: 2 }));
    assert.equal(
      (await rows(collections, shipments)).map((row) => row.customer),
      [2, 1, 2],
    );
  });

  for (const action of ['no action', 'restrict'] as const) {
    test(`deleting a referred row under "${action}" names the referrers and deletes nothing`, async ({
      collections,
    }) => {
      const { customers, shipments } = await seeded(collections, shipmentCustomer(action));
      await stillReferenced(
        write(collections, (writer) => writer.delete(customers, [1])),
        SHIPMENTS_TO_CUSTOMERS,
      );
      assert.is((await rows(collections, customers)).length, 2);
      await write(collections, async (writer) => {
        await writer.delete(shipments, [12]);
        await writer.delete(customers, [2]);
      });
      assert.equal(
        (await rows(collections, customers)).map((row) => row.id),
        [1],
      );
    });

    test(`changing a referred key under "${action}" names the referrers`, async ({ collections }) => {
      const { customers } = await seeded(collections, shipmentCustomer('no action', action));
      await stillReferenced(
        write(collections, (writer) => writer.update(customers, [1], { id: 5 })),
        SHIPMENTS_TO_CUSTOMERS,
      );
      await write(collections, (writer) => writer.update(customers, [1], { name: 'Acme Inc' }));
      assert.equal((await rows(collections, customers))[0], { id: 1, name: 'Acme Inc' });
    });
  }

  test('"cascade" deletes the referrers, and theirs in turn', async ({ collections }) => {
    const { customers, shipments, cargos } = await seeded(
      collections,
      shipmentCustomer('cascade'),
      cargoShipment('cascade'),
    );
    await write(collections, (writer) => writer.delete(customers, [1]));
    assert.equal(
      (await rows(collections, shipments)).map((row) => row.id),
      [12],
    );
    assert.equal(await rows(collections, cargos), []);
  });

  test('a cascade that reaches rows still referred to under "no action" deletes nothing', async ({
    collections,
  }) => {
    const { customers, shipments } = await seeded(collections, shipmentCustomer('cascade'), cargoShipment());
    await stillReferenced(
      write(collections, (writer) => writer.delete(customers, [1])),
      CARGOS_TO_SHIPMENTS,
    );
    assert.is((await rows(collections, customers)).length, 2);
    assert.is((await rows(collections, shipments)).length, 3);
  });

  test('"set null" empties the referring column', async ({ collections }) => {
    const { customers, shipments } = await seeded(collections, shipmentCustomer('set null'));
    await write(collections, (writer) => writer.delete(customers, [1]));
    assert.equal(
      (await rows(collections, shipments)).map((row) => [row.id, row.customer]),
      [
        [10, null],
        [11, null],
        [12, 2],
      ],
    );
  });

  test('"set null" on a column that takes no null is refused naming it', async ({ collections }) => {
    await collections.editor.createCollection('invoices', [
      { field: 'id', type: 'integer', isPrimaryKey: true },
      { field: 'customer', type: 'integer', isNullable: false },
    ]);
    const { customers } = await seeded(collections, {
      collection: 'invoices',
      field: 'customer',
      relatedCollection: 'customers',
      onDelete: 'set null',
    });
    await collections.insertRows('invoices', [{ id: 1, customer: 2 }]);
    const error = await refusal(write(collections, (writer) => writer.delete(customers, [2])));
    assert.is(error.code, 'FAILED_VALIDATION');
    assert.is(error.extensions.field, 'customer');
    assert.is((await rows(collections, customers)).length, 2);
  });

  test('"set default" points the referrers at the default, which must exist', async ({ collections }) => {
    await collections.editor.createCollection('invoices', [
      { field: 'id', type: 'integer', isPrimaryKey: true },
      { field: 'customer', type: 'integer', defaultValue: 1 },
    ]);
    const { customers } = await seeded(collections, {
      collection: 'invoices',
      field: 'customer',
      relatedCollection: 'customers',
      onDelete: 'set default',
    });
    await collections.insertRows('invoices', [
      { id: 1, customer: 1 },
      { id: 2, customer: 2 },
    ]);
    const invoices = schema(collections, 'invoices');
    await write(collections, (writer) => writer.delete(customers, [2]));
    assert.equal(
      (await rows(collections, invoices)).map((row) => row.customer),
      [1, 1],
    );
    await stillReferenced(
      write(collections, (writer) => writer.delete(customers, [1])),
      {
        collection: 'invoices',
        columns: ['customer'],
        referenced: { collection: 'customers', columns: ['id'] },
      },
    );
  });

  test('"cascade" on update moves the referrers to the new key', async ({ collections }) => {
    const { customers, shipments } = await seeded(collections, shipmentCustomer('no action', 'cascade'));
    await write(collections, (writer) => writer.update(customers, [1], { id: 7 }));
    assert.equal(
      (await rows(collections, shipments)).map((row) => [row.id, row.customer]),
      [
        [10, 7],
        [11, 7],
        [12, 2],
      ],
    );
  });

  test('"set null" on update empties the referrers of the changed key only', async ({ collections }) => {
    const { customers, shipments } = await seeded(collections, shipmentCustomer('no action', 'set null'));
    await write(collections, (writer) => writer.update(customers, [2], { id: 3 }));
    assert.equal(
      (await rows(collections, shipments)).map((row) => row.customer),
      [1, 1, null],
    );
  });

  test('a self-reference: a row may point at itself, be deleted with it, and cascade down its tree', async ({
    collections,
  }) => {
    await collections.editor.createCollection('nodes', [
      { field: 'id', type: 'integer', isPrimaryKey: true },
      { field: 'parent', type: 'integer' },
    ]);
    await collections.editor.createRelation({
      collection: 'nodes',
      field: 'parent',
      relatedCollection: 'nodes',
      onDelete: 'cascade',
    });
    const nodes = schema(collections, 'nodes');
    await write(collections, (writer) =>
      writer.insert(nodes, [
        { id: 1, parent: 1 },
        { id: 2, parent: 1 },
        { id: 3, parent: 2 },
        { id: 4, parent: null },
      ]),
    );
    await missing(
      write(collections, (writer) => writer.insert(nodes, [{ id: 5, parent: 6 }])),
      'parent',
    );
    await write(collections, (writer) => writer.delete(nodes, [2]));
    assert.equal(
      (await rows(collections, nodes)).map((row) => row.id),
      [1, 4],
    );
    await write(collections, (writer) => writer.delete(nodes, [1]));
    assert.equal(
      (await rows(collections, nodes)).map((row) => row.id),
      [4],
    );
  });

  test('changing a self-referred key under "no action" while writing the reference is the written field', async ({
    collections,
  }) => {
    await collections.editor.createCollection('nodes', [
      { field: 'id', type: 'integer', isPrimaryKey: true },
      { field: 'parent', type: 'integer' },
    ]);
    await collections.editor.createRelation({
      collection: 'nodes',
      field: 'parent',
      relatedCollection: 'nodes',
    });
    await collections.insertRows('nodes', [
      { id: 1, parent: null },
      { id: 2, parent: 1 },
    ]);
    const nodes = schema(collections, 'nodes');
    await stillReferenced(
      write(collections, (writer) => writer.update(nodes, [1], { id: 9 })),
      {
        collection: 'nodes',
        columns: ['parent'],
        referenced: { collection: 'nodes', columns: ['id'] },
      },
    );
    await missing(
      write(collections, (writer) => writer.update(nodes, [1], { id: 9, parent: null })),
      'parent',
    );
  });

  test('a failure later in the transaction undoes a cascade', async ({ collections }) => {
    const { customers, shipments, cargos } = await seeded(
      collections,
      shipmentCustomer('cascade'),
      cargoShipment('cascade'),
    );
    await refusal(
      write(collections, async (writer) => {
        await writer.delete(customers, [1]);
        await writer.insert(cargos, [{ id: 102, shipment: 10 }]);
      }),
    );
    assert.is((await rows(collections, customers)).length, 2);
    assert.is((await rows(collections, shipments)).length, 3);
    assert.is((await rows(collections, cargos)).length, 2);
  });

  test('a transaction reads back its own cascade', async ({ collections }) => {
    const { customers, shipments } = await seeded(collections, shipmentCustomer('set null'));
    const read = await write(collections, async (writer) => {
      await writer.delete(customers, [2]);
      return writer.getMany({
        collection: shipments,
        select: [
          { field: 'id', visibleWhen: null },
          { field: 'customer', visibleWhen: null },
        ],
        visible: null,
        keys: [12],
      });
    });
    assert.equal(read, ['{"id":12,"customer":null}']);
  });
  return test;
}
