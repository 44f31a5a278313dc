import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  compareNumbers,
  isNonFinite,
  NON_FINITE_NUMBERS,
  textOfChoice,
} from '../../studio/src/api/non-finite-numbers.ts';

test('the non-finite values are the three spellings the API answers, and no other', () => {
  assert.equal([...NON_FINITE_NUMBERS], ['NaN', 'Infinity', '-Infinity']);
  for (const value of NON_FINITE_NUMBERS) assert.ok(isNonFinite(value), value);
  for (const value of ['nan', 'inf', '+Infinity', 'infinity', ' NaN', '', '1', Number.NaN, Infinity, null]) {
    assert.not.ok(isNonFinite(value), String(value));
  }
});

test('a choice gives its spelling; "a number" the loaded number, or nothing after a non-finite value', () => {
  assert.is(textOfChoice('NaN', '4.5'), 'NaN');
  assert.is(textOfChoice('-Infinity', ''), '-Infinity');
  assert.is(textOfChoice('number', '4.5'), '4.5', 'back to the loaded number: the field is unchanged');
  assert.is(textOfChoice('number', '123456789012345678901234567890'), '123456789012345678901234567890');
  assert.is(textOfChoice('number', 'Infinity'), '', 'a number input cannot hold Infinity');
  assert.is(textOfChoice('number', ''), '');
});

test("numbers compare in PostgreSQL's order: -Infinity, the numbers, Infinity, then NaN", () => {
  const values = [3, 'NaN', '-Infinity', '0.10', 'Infinity', -2, 'NaN', '123456789012345678901234567890'];
  assert.equal(values.sort(compareNumbers), [
    '-Infinity',
    -2,
    '0.10',
    3,
    '123456789012345678901234567890',
    'Infinity',
    'NaN',
    'NaN',
  ]);
  assert.is(compareNumbers('NaN', 'NaN'), 0, 'NaN equals itself');
  assert.is(compareNumbers('Infinity', 'Infinity'), 0);
  assert.is(compareNumbers('-Infinity', '-Infinity'), 0);
  assert.ok(compareNumbers('Infinity', 'NaN') < 0);
  assert.ok(compareNumbers('NaN', 1e308) > 0);
});

test.run();
