import * as assert from 'uvu/assert';
import { DomainError } from '../../src/domain/errors.ts';
import type { CollectionSchema, FieldSchema } from '../../src/domain/schema/collection-schema.ts';
import type { NewField } from '../../src/domain/schema/new-field.ts';
import type { Collections } from '../support/collections.ts';
import type { CollectionsTarget } from '../support/databases.ts';
import { expectDomainError } from '../support/expect-domain-error.ts';
import { skippableSuite } from '../support/skippable-suite.ts';

const field = (collection: CollectionSchema, name: string): FieldSchema => {
  const found = collection.fields.find((candidate) => candidate.name === name);
  if (!found) throw new Error(`no field ${name}`);
  return found;
};

async function expectFailedValidation(promise: Promise<unknown>, fieldName: string) {
  try {
    await promise;
  } catch (error) {
    assert.instance(error, DomainError);
    assert.is((error as DomainError).code, 'FAILED_VALIDATION');
    assert.is((error as DomainError).extensions.field, fieldName);
    return;
  }
  assert.unreachable('expected FAILED_VALIDATION');
}

const EVERY_TYPE: ReadonlyArray<NewField> = [
  { field: 'id', type: 'integer', isPrimaryKey: true },
  { field: 'key', type: 'uuid' },
  { field: 'code', type: 'string', maxLength: 12, isUnique: true },
  { field: 'name', type: 'string', isNullable: false, defaultValue: 'unnamed' },
  { field: 'body', type: 'text' },
  { field: 'small', type: 'integer', defaultValue: 7 },
  { field: 'big', type: 'bigInteger' },
  { field: 'ratio', type: 'float' },
  { field: 'price', type: 'decimal' },
  { field: 'flag', type: 'boolean', isNullable: false, defaultValue: false },
  { field: 'at', type: 'timestamp' },
  { field: 'instant', type: 'dateTime' },
  { field: 'day', type: 'date' },
  { field: 'clock', type: 'time' },
  { field: 'doc', type: 'json' },
];

/** SchemaCatalog + SchemaEditor as the API relies on them (docs/api.md §7), for every backend. */
export function schemaContract(target: CollectionsTarget) {
  const test = skippableSuite<{ collections: Collections }>(
    `SchemaCatalog and SchemaEditor on ${target.name}`,
    target.skip,
  );
  test.before.each(async (context) => {
    context.collections = await target.fresh();
  });
  test.after(() => target.dispose());

  test('a created collection has its fields in order, with types, keys, nullability and defaults', async ({
    collections: { editor, catalog },
  }) => {
    const created = await editor.createCollection('things', EVERY_TYPE);
    assert.equal(catalog.current().collections.get('things'), created);
    assert.is(created.name, 'things');
    assert.is(created.primaryKey, 'id');
    assert.equal(
      created.fields.map((f) => [f.name, f.type]),
      EVERY_TYPE.map((f) => [f.field, f.type]),
    );
    const id = field(created, 'id');
    assert.equal([id.isPrimaryKey, id.nullable, id.hasDefault, id.isUnique], [true, false, true, true]);
    assert.equal(
      [field(created, 'key').nullable, field(created, 'key').hasDefault, field(created, 'key').isPrimaryKey],
      [true, false, false],
    );
    assert.equal([field(created, 'code').isUnique, field(created, 'code').maxLength], [true, 12]);
    assert.equal(field(created, 'name').maxLength, 255);
    assert.equal([field(created, 'name').nullable, field(created, 'name').hasDefault], [false, true]);
    assert.equal([field(created, 'flag').nullable, field(created, 'flag').hasDefault], [false, true]);
    assert.equal([field(created, 'small').nullable, field(created, 'small').hasDefault], [true, true]);
    assert.is(field(created, 'body').maxLength, null);
    assert.is(field(created, 'body').defaultValue, null);
    assert.is(field(created, 'body').isUnique, false);
  });

  test('created columns have the SQL types of docs/api.md §7, as PostgreSQL prints them', async ({
    collections: { editor },
  }) => {
    const created = await editor.createCollection('things', EVERY_TYPE);
    assert.equal(Object.fromEntries(created.fields.map((f) => [f.name, f.dbType])), {
      id: 'integer',
      key: 'uuid',
      code: 'character varying(12)',
      name: 'character varying(255)',
      body: 'text',
      small: 'integer',
      big: 'bigint',
      ratio: 'double precision',
      price: 'numeric',
      flag: 'boolean',
      at: 'timestamp without time zone',
      instant: 'timestamp with time zone',
      day: 'date',
      clock: 'time without time zone',
      doc: 'jsonb',
    });
  });

  test('a uuid primary key gets no default (the application generates v7 keys)', async ({
    collections: { editor },
  }) => {
    const created = await editor.createCollection('tokens', [
      { field: 'id', type: 'uuid', isPrimaryKey: true },
    ]);
    assert.equal([field(created, 'id').hasDefault, field(created, 'id').nullable], [false, false]);
    assert.is(created.primaryKey, 'id');
  });

  test('a collection without a primary key field has none', async ({ collections: { editor } }) => {
    const created = await editor.createCollection('log', [{ field: 'line', type: 'text' }]);
    assert.is(created.primaryKey, null);
  });

  test('an existing collection is RECORD_NOT_UNIQUE on collection', async ({ collections: { editor } }) => {
    await editor.createCollection('things', [{ field: 'id', type: 'integer', isPrimaryKey: true }]);
    await expectDomainError(
      editor.createCollection('things', [{ field: 'x', type: 'text' }]),
      'RECORD_NOT_UNIQUE',
    );
    try {
      await editor.createCollection('things', [{ field: 'x', type: 'text' }]);
      assert.unreachable('the second create was not refused');
    } catch (error) {
      assert.equal((error as DomainError).extensions, { field: 'collection' });
    }
  });

  test('collection names must be plain identifiers and not system names', async ({
    collections: { editor },
  }) => {
    const fields: NewField[] = [{ field: 'id', type: 'integer' }];
    for (const bad of [
      '',
      '1things',
      'my things',
      'we"ird',
      'a.b',
      'ünï',
      'x'.repeat(64),
      'datagate_x',
      'DataGate_X',
    ]) {
      await expectFailedValidation(editor.createCollection(bad, fields), 'collection');
    }
    await editor.createCollection(`_${'x'.repeat(62)}`, fields);
  });

  test('field names must be plain identifiers', async ({ collections: { editor } }) => {
    for (const bad of ['', '9lives', 'a b', 'x"y', 'x'.repeat(64)]) {
      await expectFailedValidation(
        editor.createCollection('things', [{ field: bad, type: 'text' }]),
        'field',
      );
    }
  });

  test('no fields, duplicate fields and two primary keys are FAILED_VALIDATION', async ({
    collections: { editor, catalog },
  }) => {
    await expectDomainError(editor.createCollection('things', []), 'FAILED_VALIDATION');
    await expectDomainError(
      editor.createCollection('things', [
        { field: 'a', type: 'text' },
        { field: 'a', type: 'integer' },
      ]),
      'FAILED_VALIDATION',
    );
    await expectDomainError(
      editor.createCollection('things', [
        { field: 'a', type: 'integer', isPrimaryKey: true },
        { field: 'b', type: 'integer', isPrimaryKey: true },
      ]),
      'FAILED_VALIDATION',
    );
    assert.is(catalog.current().collections.size, 0);
  });

  test('a default that is not a value of its type is FAILED_VALIDATION on that field, nothing created', async ({
    collections: { editor, catalog },
  }) => {
    await expectFailedValidation(
      editor.createCollection('things', [
        { field: 'id', type: 'integer', isPrimaryKey: true },
        { field: 'n', type: 'integer', defaultValue: 'abc' },
      ]),
      'n',
    );
    await expectFailedValidation(
      editor.createCollection('things', [
        { field: 'code', type: 'string', maxLength: 3, defaultValue: 'abcd' },
      ]),
      'code',
    );
    await expectFailedValidation(
      editor.createCollection('things', [{ field: 'at', type: 'timestamp', defaultValue: 'yesterday-ish' }]),
      'at',
    );
    assert.is(catalog.current().collections.get('things'), undefined);
  });

  test('defaults with quotes and backslashes are kept literally', async ({
    collections: { editor, store, insertRows },
  }) => {
    const tricky = `O'Reilly \\ "quoted" '); drop table things; --`;
    const created = await editor.createCollection('things', [
      { field: 'id', type: 'integer', isPrimaryKey: true },
      { field: 'note', type: 'text', defaultValue: tricky },
    ]);
    await insertRows('things', [{ id: 1 }]);
    const item = await store.get({
      collection: created,
      select: [{ field: 'note', visibleWhen: null }],
      visible: null,
      id: 1,
    });
    assert.equal(JSON.parse(item ?? 'null'), { note: tricky });
  });

  test('dropping a collection removes it; a missing or system one is COLLECTION_NOT_FOUND', async ({
    collections: { editor, catalog },
  }) => {
    await editor.createCollection('things', [{ field: 'id', type: 'integer', isPrimaryKey: true }]);
    await editor.dropCollection('things');
    assert.is(catalog.current().collections.has('things'), false);
    await expectDomainError(editor.dropCollection('things'), 'COLLECTION_NOT_FOUND');
    await expectDomainError(editor.dropCollection('datagate_users'), 'COLLECTION_NOT_FOUND');
  });

  test('a field can be added and dropped', async ({ collections: { editor, catalog } }) => {
    await editor.createCollection('things', [{ field: 'id', type: 'integer', isPrimaryKey: true }]);
    const added = await editor.addField('things', {
      field: 'label',
      type: 'string',
      maxLength: 20,
      isUnique: true,
    });
    assert.equal(
      added.fields.map((f) => f.name),
      ['id', 'label'],
    );
    assert.equal([field(added, 'label').isUnique, field(added, 'label').maxLength], [true, 20]);
    assert.equal(catalog.current().collections.get('things'), added);
    const dropped = await editor.dropField('things', 'label');
    assert.equal(
      dropped.fields.map((f) => f.name),
      ['id'],
    );
  });

  test('field changes refuse duplicates, unknowns and the primary key', async ({
    collections: { editor },
  }) => {
    await editor.createCollection('things', [
      { field: 'id', type: 'integer', isPrimaryKey: true },
      { field: 'label', type: 'text' },
    ]);
    await expectDomainError(editor.addField('things', { field: 'label', type: 'text' }), 'RECORD_NOT_UNIQUE');
    await expectDomainError(editor.addField('nothing', { field: 'x', type: 'text' }), 'COLLECTION_NOT_FOUND');
    await expectFailedValidation(editor.addField('things', { field: 'bad name', type: 'text' }), 'field');
    await expectDomainError(editor.dropField('things', 'missing'), 'NOT_FOUND');
    await expectDomainError(editor.dropField('nothing', 'label'), 'COLLECTION_NOT_FOUND');
    await expectDomainError(editor.dropField('things', 'id'), 'FAILED_VALIDATION');
  });

  test('a required field without default cannot be added to a collection with items', async ({
    collections: { editor, insertRows },
  }) => {
    await editor.createCollection('things', [{ field: 'id', type: 'integer', isPrimaryKey: true }]);
    await insertRows('things', [{ id: 1 }]);
    await expectFailedValidation(
      editor.addField('things', { field: 'must', type: 'text', isNullable: false }),
      'must',
    );
    const added = await editor.addField('things', {
      field: 'must',
      type: 'text',
      isNullable: false,
      defaultValue: 'x',
    });
    assert.equal([field(added, 'must').nullable, field(added, 'must').hasDefault], [false, true]);
  });

  test('a unique field whose default would repeat on existing items is RECORD_NOT_UNIQUE on it, not added', async ({
    collections: { editor, catalog, insertRows },
  }) => {
    await editor.createCollection('things', [{ field: 'id', type: 'integer', isPrimaryKey: true }]);
    await insertRows('things', [{ id: 1 }, { id: 2 }]);
    for (const unique of [
      { field: 'code', type: 'string', isUnique: true, defaultValue: 'x' },
      { field: 'code', type: 'integer', isUnique: true, isNullable: false, defaultValue: 1 },
    ] as const) {
      try {
        await editor.addField('things', unique);
        assert.unreachable('expected RECORD_NOT_UNIQUE');
      } catch (error) {
        assert.instance(error, DomainError);
        assert.equal(
          [(error as DomainError).code, (error as DomainError).extensions.field],
          ['RECORD_NOT_UNIQUE', 'code'],
        );
      }
    }
    assert.equal(
      (await catalog.refresh()).collections.get('things')?.fields.map((each) => each.name),
      ['id'],
    );
  });

  return test;
}
