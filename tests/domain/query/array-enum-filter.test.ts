import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DomainError } from '../../../src/domain/errors.ts';
import { columnValue } from '../../../src/domain/items/column-value.ts';
import { bindDynamicValues } from '../../../src/domain/query/bind-dynamic-values.ts';
import { MATCH_NONE } from '../../../src/domain/query/filter.ts';
import { isSortable } from '../../../src/domain/query/operator-support.ts';
import { parseFilter } from '../../../src/domain/query/parse-filter.ts';
import { fieldOf } from '../../../src/domain/schema/collection-schema.ts';
import { EXISTING_TABLES } from '../../support/existing-tables.ts';

const tagged = EXISTING_TABLES.find((table) => table.name === 'tagged')!;
const field = (name: string) => fieldOf(tagged, name)!;
const parse = (raw: unknown) => parseFilter(raw, tagged);

function refused(attempt: () => unknown, code: string, reason?: string) {
  try {
    attempt();
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    assert.is(error.code, code, error.message);
    if (reason) assert.is(error.extensions.reason, reason, error.message);
    return;
  }
  assert.unreachable(`expected ${code}`);
}

test('array operands are elements, coerced to the element type, in both filter forms', () => {
  assert.equal(parse({ counts: { _contains: '2' } }), {
    kind: 'condition',
    field: 'counts',
    operator: '_contains',
    value: 2,
  });
  assert.equal(parse('{"bigs":{"_intersects":[1,"9007199254740993"]}}'), {
    kind: 'condition',
    field: 'bigs',
    operator: '_intersects',
    values: ['1', '9007199254740993'],
  });
  assert.equal(parse({ moods: { _nintersects: 'ok,sad' } }), {
    kind: 'condition',
    field: 'moods',
    operator: '_nintersects',
    values: ['ok', 'sad'],
  });
  assert.equal(parse({ tags: { _intersects: [] } }), MATCH_NONE);
  assert.equal(parse({ tags: { _nintersects: [] } }), {
    kind: 'condition',
    field: 'tags',
    operator: '_nnull',
  });
});

test('a bad element, an unknown label or an operator arrays lack is INVALID_QUERY', () => {
  refused(() => parse({ counts: { _contains: 'x' } }), 'INVALID_QUERY', 'INVALID_VALUE');
  refused(() => parse({ counts: { _contains: 2147483648 } }), 'INVALID_QUERY', 'INVALID_VALUE');
  refused(() => parse({ moods: { _contains: 'angry' } }), 'INVALID_QUERY', 'INVALID_VALUE');
  refused(() => parse({ mood: { _eq: 'angry' } }), 'INVALID_QUERY', 'INVALID_VALUE');
  refused(() => parse({ mood: { _in: ['happy', 'Happy'] } }), 'INVALID_QUERY', 'INVALID_VALUE');
  for (const operator of ['_eq', '_in', '_lt', '_between', '_icontains', '_starts_with']) {
    refused(() => parse({ tags: { [operator]: ['a', 'b'] } }), 'INVALID_QUERY', 'UNSUPPORTED_OPERATOR');
  }
  refused(() => parse({ mood: { _intersects: ['ok'] } }), 'INVALID_QUERY', 'UNSUPPORTED_OPERATOR');
  assert.not.ok(isSortable('array'));
});

test('text operators on an enum take any text: a pattern is matched against the label, it is no label', () => {
  for (const operator of ['_contains', '_ncontains', '_icontains', '_starts_with', '_nends_with']) {
    assert.equal(parse({ mood: { [operator]: 'AP' } }), {
      kind: 'condition',
      field: 'mood',
      operator,
      value: 'AP',
    });
  }
  refused(() => parse({ mood: { _contains: 'a\u0000' } }), 'INVALID_QUERY', 'INVALID_VALUE');
  refused(() => parse({ moods: { _contains: 'ha' } }), 'INVALID_QUERY', 'INVALID_VALUE');
  const context = { user: '0190a000-0000-7000-8000-000000000001', role: null, now: new Date(0) };
  assert.equal(bindDynamicValues(parse({ mood: { _contains: '$CURRENT_USER' } }), context, tagged), {
    kind: 'condition',
    field: 'mood',
    operator: '_contains',
    value: context.user,
  });
});

test('dynamic values on arrays bind as elements; an element that cannot be one matches nothing', () => {
  const context = { user: '0190a000-0000-7000-8000-000000000001', role: null, now: new Date(0) };
  const keys = parse({ keys: { _contains: '$CURRENT_USER' } });
  assert.equal(bindDynamicValues(keys, context, tagged), {
    kind: 'condition',
    field: 'keys',
    operator: '_contains',
    value: context.user,
  });
  const counts = parse({ counts: { _contains: '$CURRENT_USER' } });
  assert.equal(bindDynamicValues(counts, context, tagged), MATCH_NONE);
});

test('writes take JSON arrays of valid elements (nulls allowed) and declared labels only', () => {
  assert.is(columnValue(field('counts'), [1, null, '3']), '[1,null,3]');
  assert.is(columnValue(field('codes'), ['abc', '✓✓✓']), '["abc","✓✓✓"]');
  assert.is(columnValue(field('prices'), ['1.10', 2]), '["1.1","2"]');
  assert.is(columnValue(field('mood'), 'happy'), 'happy');
  const invalid: Array<[string, unknown]> = [
    ['counts', '{1,2}'],
    ['counts', [[1, 2]]],
    ['counts', [1.5]],
    ['counts', { 0: 1 }],
    ['codes', ['abcd']],
    ['prices', [1, '123456789']],
    ['flags', ['yes']],
    ['keys', ['not-a-uuid']],
    ['moods', ['angry']],
    ['mood', 'angry'],
    ['mood', 'HAPPY'],
    ['tags', ['nul\u0000']],
  ];
  for (const [name, value] of invalid) {
    refused(() => columnValue(field(name), value), 'FAILED_VALIDATION');
  }
});

test.run();
