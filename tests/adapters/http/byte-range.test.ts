import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { byteRangeOf } from '../../../src/adapters/http/byte-range.ts';

const SIZE = 100;
/** Past Number.MAX_SAFE_INTEGER (2^53 − 1), where a double would round. */
const HUGE = '9007199254740993';
const HUGER = '1'.repeat(400);

const cases: Array<[string, string | undefined, ReturnType<typeof byteRangeOf>]> = [
  ['no header: the whole file', undefined, 'whole'],
  ['first-last', 'bytes=2-5', { start: 2, end: 5 }],
  ['a last past the end is clamped to the end', 'bytes=0-1000', { start: 0, end: 99 }],
  ['a last past 2^53 is clamped to the end', `bytes=0-${HUGE}`, { start: 0, end: 99 }],
  ['a last hundreds of digits long is clamped to the end', `bytes=10-${HUGER}`, { start: 10, end: 99 }],
  ['leading zeros are the same number', 'bytes=0002-0000000000000000000005', { start: 2, end: 5 }],
  ['a first past 2^53 is past the end: 416', `bytes=${HUGE}-`, 'unsatisfiable'],
  ['a first past 2^53 with a last after it: 416', `bytes=${HUGE}-${HUGER}`, 'unsatisfiable'],
  ['a last before a huge first is not valid: the whole file', `bytes=${HUGER}-${HUGE}`, 'whole'],
  ['a suffix past 2^53 is the whole file, as a range', `bytes=-${HUGE}`, { start: 0, end: 99 }],
  ['a suffix of 0 bytes: 416', 'bytes=-0', 'unsatisfiable'],
  ['reversed: the whole file', 'bytes=9-3', 'whole'],
  ['garbage: the whole file', 'bytes=banana', 'whole'],
  ['the unit in any case (RFC 9110 §14.1)', 'BYTES=2-5', { start: 2, end: 5 }],
  ['the unit in mixed case, a suffix', 'Bytes=-10', { start: 90, end: 99 }],
  ['another unit: the whole file', 'items=0-1', 'whole'],
];

for (const [name, header, expected] of cases) {
  test(`a Range header: ${name}`, () => {
    assert.equal(byteRangeOf(header, SIZE), expected);
  });
}

test.run();
