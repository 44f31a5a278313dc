import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { withoutUnchangedKey } from '../../../src/domain/items/unchanged-key.ts';
import type { CollectionSchema } from '../../../src/domain/schema/collection-schema.ts';
import { CARGO_IDS, cargosSchema, field } from '../../support/cargos-schema.ts';
import { expectError } from './domain-error.ts';

test('an update payload without the key is returned as it is', () => {
  assert.equal(withoutUnchangedKey({ description: 'x' }, cargosSchema, CARGO_IDS.a), { description: 'x' });
});

test("the row's own key is dropped from the payload", () => {
  assert.equal(withoutUnchangedKey({ id: CARGO_IDS.a, description: 'x' }, cargosSchema, CARGO_IDS.a), {
    description: 'x',
  });
});

test('a different key is FAILED_VALIDATION naming the key field', () => {
  const error = expectError(
    () => withoutUnchangedKey({ id: CARGO_IDS.b }, cargosSchema, CARGO_IDS.a),
    'FAILED_VALIDATION',
    'id',
  );
  assert.match(error.message, 'cannot be changed');
});

test('keys compare by value for their type: int8 as exact digits', () => {
  const big: CollectionSchema = {
    name: 'big',
    primaryKey: 'id',
    fields: [field('id', 'bigInteger', 'bigint', { nullable: false, isPrimaryKey: true })],
  };
  assert.equal(withoutUnchangedKey({ id: '9007199254740993' }, big, '9007199254740993'), {});
  expectError(
    () => withoutUnchangedKey({ id: '9007199254740992' }, big, '9007199254740993'),
    'FAILED_VALIDATION',
    'id',
  );
});

test('a collection without primary key has no key to drop', () => {
  const keyless = { ...cargosSchema, primaryKey: null };
  assert.equal(withoutUnchangedKey({ id: CARGO_IDS.b }, keyless, CARGO_IDS.a), { id: CARGO_IDS.b });
});

test.run();
