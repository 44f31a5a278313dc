import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isLogPosition } from '../../../src/application/ports/item-events.ts';

test('a log position is a decimal int8 without a leading zero', () => {
  for (const position of ['0', '1', '42', '9223372036854775807'])
    assert.ok(isLogPosition(position), position);
  for (const position of ['', '01', '-1', '1.5', '9223372036854775808', '99999999999999999999', ' 1', 'x']) {
    assert.not.ok(isLogPosition(position), position);
  }
});

test.run();
