import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { textTable } from '../../src/adapters/cli/text-table.ts';

test('columns line up under an upper-case header; an empty cell is a dash, whitespace one space', () => {
  assert.is(
    textTable(
      ['name', 'id'],
      [
        ['a b\tc', '1'],
        ['', '22'],
      ],
    ),
    'NAME   ID\na b c  1\n-      22',
  );
});

test('a control character in a stored name is shown escaped, never sent to the terminal', () => {
  const row = textTable(['name'], [['\x1b]0;owned\x07red\x1b[31m']]).split('\n')[1]!;
  assert.not.match(row, /\p{Cc}/u);
  assert.is(row, '\\u001b]0;owned\\u0007red\\u001b[31m');
});

test.run();
