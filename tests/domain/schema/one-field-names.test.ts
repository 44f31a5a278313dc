import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { CollectionSchema, FieldSchema } from '../../../src/domain/schema/collection-schema.ts';
import { type UnnamedRelation, withOneFields } from '../../../src/domain/schema/one-field-names.ts';

/** 55 bytes: with `_parent_one` the default name is 66, which PostgreSQL would cut to 63 as an alias. */
const LONG = 'p'.repeat(55);

const field = (name: string): FieldSchema => ({
  name,
  type: 'integer',
  dbType: 'integer',
  nullable: true,
  defaultValue: null,
  isPrimaryKey: name === 'id',
  isUnique: name === 'id',
  hasDefault: false,
  maxLength: null,
});

const collection = (name: string, ...fields: string[]): [string, CollectionSchema] => [
  name,
  { name, primaryKey: 'id', fields: ['id', ...fields].map(field) },
];

const COLLECTIONS = new Map([
  collection('shipments', 'number'),
  collection('cargos', 'shipment', 'origin', 'destination'),
  collection('ports'),
  collection(LONG, 'parent_one', 'parent_two'),
]);

const relation = (from: string, by: string, to: string, chosen?: string | null): UnnamedRelation => ({
  constraint: `${from}_${by}_foreign`,
  collection: from,
  field: by,
  relatedCollection: to,
  relatedField: 'id',
  onDelete: 'no action',
  onUpdate: 'no action',
  ...(chosen === undefined ? {} : { chosenOneField: chosen }),
});

const names = (relations: UnnamedRelation[]) =>
  withOneFields(relations, COLLECTIONS).map((named) => named.oneField);

test('the referring collection names the one-to-many side; several keys to one collection add the field', () => {
  assert.equal(
    names([
      relation('cargos', 'shipment', 'shipments'),
      relation('cargos', 'origin', 'ports'),
      relation('cargos', 'destination', 'ports'),
    ]),
    ['cargos', 'cargos_origin', 'cargos_destination'],
  );
});

test('a chosen name wins over the default, and null chooses the default', () => {
  assert.equal(
    names([
      relation('cargos', 'shipment', 'shipments', 'freight'),
      relation('cargos', 'origin', 'ports', null),
    ]),
    ['freight', 'cargos'],
  );
});

test('a name taken by a column or by two relations is given to none', () => {
  assert.equal(names([relation('cargos', 'shipment', 'shipments', 'number')]), [null]);
  assert.equal(
    names([
      relation('cargos', 'origin', 'ports', 'leaving'),
      relation('cargos', 'destination', 'ports', 'leaving'),
    ]),
    [null, null],
  );
  const [named] = withOneFields([relation('cargos', 'shipment', 'shipments', 'freight')], COLLECTIONS);
  assert.not.ok('chosenOneField' in named!, 'the snapshot holds relations, not what named them');
});

test('a name longer than 63 bytes is given to none; one of 63 is kept', () => {
  assert.equal(names([relation(LONG, 'parent_one', 'ports'), relation(LONG, 'parent_two', 'ports')]), [
    null,
    null,
  ]);
  assert.equal(names([relation('cargos', 'shipment', 'shipments', 'é'.repeat(32))]), [null]);
  assert.equal(names([relation('cargos', 'shipment', 'shipments', `${'é'.repeat(31)}x`)]), [
    `${'é'.repeat(31)}x`,
  ]);
});

test.run();
