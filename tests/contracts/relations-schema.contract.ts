import * as assert from 'uvu/assert';
import { DomainError } from '../../src/domain/errors.ts';
import { manyToOneOf, oneToManyOf } from '../../src/domain/schema/relations-of.ts';
import type { Collections } from '../support/collections.ts';
import type { CollectionsTarget } from '../support/databases.ts';
import { skippableSuite } from '../support/skippable-suite.ts';

async function expectCode(promise: Promise<unknown>, code: string, field?: string) {
  try {
    await promise;
  } catch (error) {
    assert.instance(error, DomainError);
    assert.is((error as DomainError).code, code);
    if (field !== undefined) assert.is((error as DomainError).extensions.field, field);
    return;
  }
  assert.unreachable(`expected ${code}`);
}

/** Relations as foreign keys: created, introspected, named and dropped the same way on every backend. */
export function relationsSchemaContract(target: CollectionsTarget) {
  const test = skippableSuite<{ collections: Collections }>(`relations schema (${target.name})`, target.skip);

  test.before.each(async (context) => {
    context.collections = await target.fresh();
    const { editor } = context.collections;
    await editor.createCollection('customers', [
      { field: 'id', type: 'integer', isPrimaryKey: true },
      { field: 'name', type: 'string' },
    ]);
    await editor.createCollection('shipments', [
      { field: 'id', type: 'integer', isPrimaryKey: true },
      { field: 'customer', type: 'integer' },
      { field: 'origin', type: 'integer' },
      { field: 'destination', type: 'integer' },
    ]);
  });
  test.after(() => target.dispose());

  test('a foreign key is a many-to-one relation and a one-to-many one named after the referring collection', async ({
    collections,
  }) => {
    const created = await collections.editor.createRelation({
      collection: 'shipments',
      field: 'customer',
      relatedCollection: 'customers',
      onDelete: 'set null',
    });
    assert.equal(created, {
      constraint: 'shipments_customer_foreign',
      collection: 'shipments',
      field: 'customer',
      relatedCollection: 'customers',
      relatedField: 'id',
      oneField: 'shipments',
      onDelete: 'set null',
      onUpdate: 'no action',
    });
    const snapshot = collections.catalog.current();
    assert.equal(manyToOneOf(snapshot, 'shipments', 'customer'), created);
    assert.equal(oneToManyOf(snapshot, 'customers', 'shipments'), created);
  });

  test('two foreign keys to the same collection are told apart by field', async ({ collections }) => {
    await collections.editor.createCollection('ports', [
      { field: 'id', type: 'integer', isPrimaryKey: true },
    ]);
    for (const field of ['origin', 'destination']) {
      await collections.editor.createRelation({ collection: 'shipments', field, relatedCollection: 'ports' });
    }
    const snapshot = collections.catalog.current();
    assert.is(oneToManyOf(snapshot, 'ports', 'shipments_origin')?.field, 'origin');
    assert.is(oneToManyOf(snapshot, 'ports', 'shipments_destination')?.field, 'destination');
    assert.is(oneToManyOf(snapshot, 'ports', 'shipments'), undefined);
  });

  test('bad relations are refused with the field named', async ({ collections }) => {
    const { editor } = collections;
    await expectCode(
      editor.createRelation({ collection: 'nope', field: 'x', relatedCollection: 'customers' }),
      'COLLECTION_NOT_FOUND',
    );
    await expectCode(
      editor.createRelation({ collection: 'shipments', field: 'nope', relatedCollection: 'customers' }),
      'FAILED_VALIDATION',
      'field',
    );
    await expectCode(
      editor.createRelation({
        collection: 'shipments',
        field: 'customer',
        relatedCollection: 'customers',
        relatedField: 'name',
      }),
      'FAILED_VALIDATION',
      'related_field',
    );
    await collections.insertRows('shipments', [{ id: 1, customer: 99 }]);
    await expectCode(
      editor.createRelation({ collection: 'shipments', field: 'customer', relatedCollection: 'customers' }),
      'FAILED_VALIDATION',
      'customer',
    );
    assert.equal(collections.catalog.current().relations, []);
  });

  test('a referred collection cannot be dropped; dropping the referring field drops the relation', async ({
    collections,
  }) => {
    const { editor, catalog } = collections;
    await editor.createRelation({
      collection: 'shipments',
      field: 'customer',
      relatedCollection: 'customers',
    });
    await expectCode(editor.dropCollection('customers'), 'FAILED_VALIDATION');
    await editor.dropField('shipments', 'customer');
    assert.equal(catalog.current().relations, []);
    await editor.dropCollection('customers');
  });

  test('dropRelation drops the foreign key only', async ({ collections }) => {
    const { editor, catalog } = collections;
    await editor.createRelation({
      collection: 'shipments',
      field: 'customer',
      relatedCollection: 'customers',
    });
    await editor.dropRelation('shipments', 'customer');
    assert.equal(catalog.current().relations, []);
    assert.ok(
      catalog
        .current()
        .collections.get('shipments')
        ?.fields.some((field) => field.name === 'customer'),
    );
    await expectCode(editor.dropRelation('shipments', 'customer'), 'NOT_FOUND');
  });

  return test;
}
