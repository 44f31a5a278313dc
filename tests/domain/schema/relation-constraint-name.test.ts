import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { constraintNameOf } from '../../../src/domain/schema/new-relation.ts';

const bytes = (text: string) => Buffer.byteLength(text, 'utf8');

test("Directus's name while PostgreSQL keeps it whole (63 bytes)", () => {
  assert.is(constraintNameOf('cargos', 'shipment'), 'cargos_shipment_foreign');
  const collection = 'c'.repeat(63 - '_f_foreign'.length);
  assert.is(constraintNameOf(collection, 'f'), `${collection}_f_foreign`);
});

test('a longer one keeps its start, fits 63 bytes, and differs for each field', () => {
  const collection = 'c'.repeat(55);
  const one = constraintNameOf(collection, 'parent_one');
  const two = constraintNameOf(collection, 'parent_two');
  assert.match(one, /^c+_[0-9a-f]{16}_foreign$/);
  assert.ok(bytes(one) <= 63 && bytes(two) <= 63, `${one} ${two}`);
  assert.is.not(one, two);
  assert.is(constraintNameOf(collection, 'parent_one'), one, 'the same name every time');
});

test('a name of many-byte characters is cut between characters', () => {
  const name = constraintNameOf('é'.repeat(31), 'ü'.repeat(31));
  assert.ok(bytes(name) <= 63, name);
  assert.not.ok(name.includes('\uFFFD'));
  assert.match(name, /^é+_[0-9a-f]{16}_foreign$/);
});

test.run();
