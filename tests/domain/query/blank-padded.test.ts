import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DomainError } from '../../../src/domain/errors.ts';
import { columnValue } from '../../../src/domain/items/column-value.ts';
import { bindDynamicValues } from '../../../src/domain/query/bind-dynamic-values.ts';
import { matchesFilter } from '../../../src/domain/query/evaluate-filter.ts';
import { parseFilter } from '../../../src/domain/query/parse-filter.ts';
import type { CollectionSchema, FieldSchema } from '../../../src/domain/schema/collection-schema.ts';

const code: FieldSchema = {
  name: 'code',
  type: 'string',
  dbType: 'character(3)',
  nullable: true,
  defaultValue: null,
  isPrimaryKey: false,
  isUnique: false,
  hasDefault: false,
  maxLength: 3,
};
const codes: CollectionSchema = { name: 'codes', primaryKey: null, fields: [code] };

const matches = (stored: string, filter: unknown) =>
  matchesFilter(
    bindDynamicValues(parseFilter(filter, codes), { user: null, role: null, now: new Date(0) }, codes),
    { code: stored },
    codes,
  );

/**
 * A rule checked in process (a write's) must hold for the rows it holds for in SQL (a list's). PostgreSQL
 * reads `'ab'` in a `char(3)` as `"ab "`; measured on PostgreSQL 15: `'ab'::char(3) = 'ab'::text`,
 * `not ('ab'::char(3) > 'ab'::text)`, `'   '::char(3) = ''::text`, `not ('ab'::char(3) like '%b')`,
 * `'ab'::char(3) like '%b '`.
 */
test('a character(n) value compares without its padding, and text operators see the padding', () => {
  const cases: ReadonlyArray<readonly [string, unknown, boolean]> = [
    ['ab ', { code: { _eq: 'ab' } }, true],
    ['ab ', { code: { _neq: 'ab' } }, false],
    ['ab ', { code: { _gt: 'ab' } }, false],
    ['ab ', { code: { _in: ['ab', 'x'] } }, true],
    ['ab ', { code: { _between: ['ab', 'ab'] } }, true],
    ['ab ', { code: { _eq: 'ab ' } }, false],
    ['   ', { code: { _empty: true } }, true],
    ['ab ', { code: { _ends_with: 'b' } }, false],
    ['ab ', { code: { _ends_with: 'b ' } }, true],
    ['ab ', { code: { _contains: 'b ' } }, true],
  ];
  for (const [stored, filter, expected] of cases) {
    assert.is(matches(stored, filter), expected, `${JSON.stringify(stored)} ${JSON.stringify(filter)}`);
  }
});

test('a value written into a character(n) column is padded to n as the column keeps it', () => {
  assert.is(columnValue(code, 'ab'), 'ab ');
  assert.is(columnValue(code, ''), '   ');
  assert.is(columnValue(code, '😀'), '😀  ');
  // PostgreSQL drops excess characters that are spaces, and refuses the others.
  assert.is(columnValue(code, 'ab     '), 'ab ');
  assert.throws(
    () => columnValue(code, 'abcd'),
    (error: unknown) => error instanceof DomainError && error.code === 'FAILED_VALIDATION',
  );
});

test.run();
