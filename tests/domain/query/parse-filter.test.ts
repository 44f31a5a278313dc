import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DomainError } from '../../../src/domain/errors.ts';
import { type FilterNode, MATCH_ALL, MATCH_NONE } from '../../../src/domain/query/filter.ts';
import { parseFilter } from '../../../src/domain/query/parse-filter.ts';
import { CARGO_IDS, cargosSchema } from '../../support/cargos-schema.ts';

const parse = (raw: unknown) => parseFilter(raw, cargosSchema);

/** Asserts INVALID_QUERY, and the reason and field when given. */
function refused(
  raw: unknown,
  expected: { reason?: string; field?: string } = {},
  label = JSON.stringify(raw),
) {
  try {
    const node = parse(raw);
    assert.unreachable(`${label} parsed as ${JSON.stringify(node)}`);
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    assert.is(error.code, 'INVALID_QUERY', label);
    if (expected.reason) assert.is(error.extensions.reason, expected.reason, label);
    if (expected.field) assert.is(error.extensions.field, expected.field, label);
  }
}

/** The INVALID_QUERY error `raw` is refused with, for checks on its wording. */
function refusal(raw: unknown): DomainError {
  try {
    parse(raw);
  } catch (error) {
    if (error instanceof DomainError && error.code === 'INVALID_QUERY') return error;
    throw error;
  }
  throw new Error(`${JSON.stringify(raw)} was not refused`);
}

const cond = (field: string, operator: string, extra: object = {}) => ({
  kind: 'condition',
  field,
  operator,
  ...extra,
});

test('the JSON string form and the bracket form with string values parse to the same tree', () => {
  const json = '{"temperature":{"_gt":10},"is_deleted":{"_eq":false}}';
  const bracket = { temperature: { _gt: '10' }, is_deleted: { _eq: 'false' } };
  const expected = {
    kind: 'and',
    nodes: [cond('temperature', '_gt', { value: 10 }), cond('is_deleted', '_eq', { value: false })],
  };
  assert.equal(parse(json), expected);
  assert.equal(parse(bracket), expected);
});

test('a single condition is returned unwrapped; several operators on one field are ANDed', () => {
  assert.equal(parse({ crate_count: { _gte: 1 } }), cond('crate_count', '_gte', { value: 1 }));
  assert.equal(parse({ crate_count: { _gte: 1, _lt: 5 } }), {
    kind: 'and',
    nodes: [cond('crate_count', '_gte', { value: 1 }), cond('crate_count', '_lt', { value: 5 })],
  });
});

test('every value operator parses with its operand coerced', () => {
  for (const operator of ['_eq', '_neq', '_lt', '_lte', '_gt', '_gte']) {
    assert.equal(parse({ price: { [operator]: '1.50' } }), cond('price', operator, { value: '1.5' }));
  }
  for (const operator of [
    '_contains',
    '_ncontains',
    '_icontains',
    '_starts_with',
    '_nstarts_with',
    '_ends_with',
    '_nends_with',
  ]) {
    assert.equal(parse({ code: { [operator]: '50%_' } }), cond('code', operator, { value: '50%_' }));
  }
});

test('_and and _or nest, and empty groups are the identities', () => {
  assert.equal(
    parse({
      _or: [{ crate_count: { _eq: 1 } }, { _and: [{ pallets: { _eq: 2 } }, { pallets: { _lt: 9 } }] }],
    }),
    {
      kind: 'or',
      nodes: [
        cond('crate_count', '_eq', { value: 1 }),
        { kind: 'and', nodes: [cond('pallets', '_eq', { value: 2 }), cond('pallets', '_lt', { value: 9 })] },
      ],
    },
  );
  assert.equal(parse({}), MATCH_ALL);
  assert.equal(parse({ _and: [] }), MATCH_ALL);
  assert.equal(parse({ _or: [] }), MATCH_NONE);
});

test('qs index objects (past its arrayLimit) are lists, in index order', () => {
  assert.equal(parse({ _or: { '30': { pallets: { _eq: '2' } }, '4': { pallets: { _eq: '1' } } } }), {
    kind: 'or',
    nodes: [cond('pallets', '_eq', { value: 1 }), cond('pallets', '_eq', { value: 2 })],
  });
  assert.equal(
    parse({ pallets: { _in: { '0': '1', '1': '2' } } }),
    cond('pallets', '_in', { values: [1, 2] }),
  );
});

test('_eq null is _null and _neq null is _nnull, on every type', () => {
  assert.equal(parse({ temperature: { _eq: null } }), cond('temperature', '_null'));
  assert.equal(parse({ temperature: { _neq: null } }), cond('temperature', '_nnull'));
  assert.equal(parse({ tags: { _eq: null } }), cond('tags', '_null'));
});

test('the text "null" is text, never null: a text field compares it, any other type refuses it pointing to _null', () => {
  assert.equal(parse({ description: { _eq: 'null' } }), cond('description', '_eq', { value: 'null' }));
  assert.equal(parse({ code: { _neq: 'NULL' } }), cond('code', '_neq', { value: 'NULL' }));
  for (const [field, type, operator, raw] of [
    ['crate_count', 'integer', '_eq', 'null'],
    ['temperature', 'float', '_neq', 'NULL'],
    ['id', 'uuid', '_in', 'null'],
    ['shipped_on', 'date', '_gt', 'Null'],
  ] as const) {
    const error = refusal({ [field]: { [operator]: raw } });
    assert.is(error.extensions.field, field);
    assert.is(error.extensions.reason, 'INVALID_VALUE');
    assert.is(
      error.message,
      `Invalid value "${raw}" for field "${field}" (${type}): the text "${raw}" is no null; ` +
        `test for null with _null or _nnull (filter[${field}][_null]=true).`,
    );
  }
});

test('_null/_nnull/_empty/_nempty take true or false, as booleans or strings', () => {
  const table: ReadonlyArray<readonly [string, unknown, string]> = [
    ['_null', true, '_null'],
    ['_null', 'true', '_null'],
    ['_null', false, '_nnull'],
    ['_null', 'false', '_nnull'],
    ['_nnull', true, '_nnull'],
    ['_nnull', 'false', '_null'],
    ['_empty', true, '_empty'],
    ['_empty', false, '_nempty'],
    ['_nempty', 'true', '_nempty'],
    ['_nempty', false, '_empty'],
  ];
  for (const [operator, flag, expected] of table) {
    assert.equal(
      parse({ description: { [operator]: flag } }),
      cond('description', expected),
      `${operator}: ${flag}`,
    );
  }
  for (const flag of ['yes', 1, '', null, []])
    refused({ description: { _null: flag } }, { reason: 'INVALID_VALUE' });
});

test('_in/_nin take arrays or comma strings; empty _in matches nothing, empty _nin every non-null', () => {
  const values = { values: [CARGO_IDS.a, CARGO_IDS.b] };
  assert.equal(parse({ id: { _in: [CARGO_IDS.a, CARGO_IDS.b] } }), cond('id', '_in', values));
  assert.equal(parse({ id: { _in: `${CARGO_IDS.a},${CARGO_IDS.b}` } }), cond('id', '_in', values));
  assert.equal(parse({ id: { _nin: [CARGO_IDS.a.toUpperCase(), CARGO_IDS.b] } }), cond('id', '_nin', values));
  assert.equal(parse({ id: { _in: [] } }), MATCH_NONE);
  assert.equal(parse({ id: { _in: '' } }), MATCH_NONE);
  assert.equal(parse({ id: { _nin: [] } }), cond('id', '_nnull'));
  assert.equal(parse({ code: { _nin: '' } }), cond('code', '_nnull'));
  assert.equal(parse({ code: { _in: 'a,,b' } }), cond('code', '_in', { values: ['a', '', 'b'] }));
  refused({ id: { _in: [CARGO_IDS.a, null] } }, { reason: 'INVALID_VALUE', field: 'id' });
  refused({ id: { _in: [CARGO_IDS.a, 'nope'] } }, { reason: 'INVALID_VALUE', field: 'id' });
  refused({ pallets: { _in: 5 } }, { reason: 'INVALID_VALUE' });
  refused({ pallets: { _in: { a: 1 } } }, { reason: 'INVALID_VALUE' });
});

test('_between/_nbetween take exactly two values, as an array or "low,high"', () => {
  assert.equal(
    parse({ crate_count: { _between: [1, 10] } }),
    cond('crate_count', '_between', { values: [1, 10] }),
  );
  assert.equal(
    parse({ crate_count: { _nbetween: '1,10' } }),
    cond('crate_count', '_nbetween', { values: [1, 10] }),
  );
  assert.equal(
    parse({ date_created: { _between: ['2024-01-01', '2024-02-01T12:00'] } }),
    cond('date_created', '_between', { values: ['2024-01-01T00:00:00', '2024-02-01T12:00:00'] }),
  );
  for (const operand of [[1], [1, 2, 3], '1', '1,2,3', [], 5]) {
    refused({ crate_count: { _between: operand } }, { reason: 'INVALID_VALUE', field: 'crate_count' });
  }
});

test('operators are refused on field types they do not apply to', () => {
  const table: ReadonlyArray<readonly [string, string, unknown]> = [
    ['crate_count', '_contains', '1'],
    ['temperature', '_icontains', '1'],
    ['id', '_starts_with', '0190'],
    ['date_created', '_ends_with', '00'],
    ['manifest', '_contains', 'x'],
    ['manifest', '_gt', 1],
    ['manifest', '_between', [1, 2]],
    ['tags', '_eq', '{a}'],
    ['tags', '_in', ['{a}']],
    ['tags', '_lt', 'a'],
  ];
  for (const [field, operator, value] of table) {
    refused(
      { [field]: { [operator]: value } },
      { reason: 'UNSUPPORTED_OPERATOR', field },
      `${field} ${operator}`,
    );
  }
  assert.equal(parse({ tags: { _nnull: true } }), cond('tags', '_nnull'));
  assert.equal(parse({ manifest: { _eq: { a: 1 } } }), cond('manifest', '_eq', { value: '{"a":1}' }));
});

test('unknown fields and operators are refused, naming them', () => {
  refused({ weight: { _eq: 1 } }, { reason: 'UNKNOWN_FIELD', field: 'weight' });
  refused({ 'owner.name': { _eq: 'x' } }, { reason: 'UNKNOWN_FIELD', field: 'owner.name' });
  refused({ Temperature: { _eq: 1 } }, { reason: 'UNKNOWN_FIELD', field: 'Temperature' });
  refused({ temperature: { _like: 1 } }, { reason: 'UNKNOWN_OPERATOR', field: 'temperature' });
  refused({ temperature: { eq: 1 } }, { reason: 'UNKNOWN_OPERATOR' });
  refused({ _eq: 1 }, { reason: 'INVALID_VALUE' });
  refused({ _not: [] }, { reason: 'UNKNOWN_FIELD' });
});

test('prototype keys are unknown fields, and nothing is assigned through them', () => {
  for (const key of ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty']) {
    refused(`{"${key}":{"_eq":1}}`, { reason: 'UNKNOWN_FIELD', field: key });
    refused(`{"temperature":{"${key}":1}}`, { reason: 'UNKNOWN_OPERATOR' });
    refused(`{"_and":[{"${key}":{"_eq":1}}]}`, { reason: 'UNKNOWN_FIELD' });
  }
  assert.is(({} as Record<string, unknown>).polluted, undefined);
  refused('{"__proto__":{"polluted":{"_eq":1}}}');
  assert.is(({} as Record<string, unknown>).polluted, undefined);
});

test('a column really named like a prototype key is filterable', () => {
  const schema = {
    ...cargosSchema,
    fields: [...cargosSchema.fields, { ...cargosSchema.fields[3]!, name: 'constructor' }],
  };
  assert.equal(
    parseFilter('{"constructor":{"_eq":"x"}}', schema),
    cond('constructor', '_eq', { value: 'x' }),
  );
});

test('a NUL or lone surrogate escaped in the JSON form is refused, named as the bracket form names its place', () => {
  for (const escaped of ['\\u0000', 'a\\ud800b', '\\udfff', '\\udc00\\ud800']) {
    refused(`{"description":{"_eq":"${escaped}"}}`, {
      reason: 'INVALID_VALUE',
      field: 'filter[description][_eq]',
    });
    refused(`{"_or":[{"code":{"_in":["x","${escaped}"]}}]}`, { field: 'filter[_or][0][code][_in][1]' });
    refused(`{"description${escaped}":{"_eq":"x"}}`, {
      field: `filter[description${escaped.toLowerCase()}]`,
    });
  }
  // A pair is one character, and an escaped backslash is no escape.
  assert.equal(
    parse('{"description":{"_eq":"\\ud83d\\ude00"}}'),
    cond('description', '_eq', { value: '😀' }),
  );
  assert.equal(
    parse('{"description":{"_eq":"\\\\u0000"}}'),
    cond('description', '_eq', { value: '\\u0000' }),
  );
});

test('malformed shapes are INVALID_QUERY', () => {
  const table: ReadonlyArray<readonly [unknown, string]> = [
    ['{"temperature":', 'broken JSON'],
    ['', 'empty string'],
    ['null', 'JSON null'],
    ['[]', 'JSON array'],
    ['42', 'JSON number'],
    [null, 'null'],
    [[], 'array'],
    [7, 'number'],
    [{ temperature: 5 }, 'a value instead of an operator object'],
    [{ temperature: {} }, 'no operator'],
    [{ temperature: [] }, 'array instead of an operator object'],
    [{ _and: { a: 1 } }, '_and with an object'],
    [{ _and: 'x' }, '_and with a string'],
    [{ _or: [5] }, '_or with a non-object'],
    [{ _or: [null] }, '_or with null'],
    [{ temperature: { _gt: null } }, 'null for an ordering operator'],
    [{ description: { _contains: null } }, 'null for _contains'],
    [{ temperature: { _eq: { _eq: 1 } } }, 'an object for a number'],
  ];
  for (const [raw, why] of table) refused(raw, {}, why);
});

test('_and with an object instead of a list: the message shows the JSON and the bracket form', () => {
  try {
    parse({ _and: { crate_count: { _gt: 1 } } });
    assert.unreachable('parsed');
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    assert.is(error.extensions.reason, 'INVALID_VALUE');
    assert.ok(error.message.includes('filter[_and][0][field][_eq]='), error.message);
  }
});

test('nesting up to depth 10 is accepted; depth 11 is refused with reason MAX_DEPTH', () => {
  const nested = (depth: number): object => {
    let filter: object = { crate_count: { _eq: 1 } };
    for (let level = 1; level < depth; level++) filter = { _and: [filter] };
    return filter;
  };
  assert.equal(parse(nested(10)), cond('crate_count', '_eq', { value: 1 }));
  refused(nested(11), { reason: 'MAX_DEPTH' });
  refused(JSON.stringify(nested(11)), { reason: 'MAX_DEPTH' });
  assert.not.throws(() => parseFilter(nested(12), cargosSchema, { maxDepth: 12 }));
});

test('up to 500 conditions are accepted; 501 are refused with reason MAX_CONDITIONS', () => {
  const conditions = (count: number) => ({
    _or: Array.from({ length: count }, (_, i) => ({ crate_count: { _eq: i } })),
  });
  const parsed = parse(conditions(500));
  assert.ok(parsed.kind === 'or' && parsed.nodes.length === 500);
  refused(conditions(501), { reason: 'MAX_CONDITIONS' });
  // Every operator of a field object counts.
  const pairs = (count: number) => ({
    _or: Array.from({ length: count }, (_, i) => ({ crate_count: { _gte: i, _lte: i } })),
  });
  assert.not.throws(() => parse(pairs(250)));
  refused(pairs(251), { reason: 'MAX_CONDITIONS' });
  // Empty groups count too, so no input makes unbounded work.
  refused({ _and: Array.from({ length: 501 }, () => ({})) }, { reason: 'MAX_CONDITIONS' });
  refused({ _and: Array.from({ length: 100_000 }, () => ({ _or: [] })) }, { reason: 'MAX_CONDITIONS' });
});

test('dynamic values parse to placeholders, with $NOW offsets in milliseconds', () => {
  const table: ReadonlyArray<readonly [string, FilterNode]> = [
    ['$CURRENT_USER', cond('user_created', '_eq', { value: { dynamic: 'CURRENT_USER' } }) as FilterNode],
    ['$CURRENT_ROLE', cond('user_created', '_eq', { value: { dynamic: 'CURRENT_ROLE' } }) as FilterNode],
  ];
  for (const [text, expected] of table) assert.equal(parse({ user_created: { _eq: text } }), expected);
  const offsets: ReadonlyArray<readonly [string, number | undefined]> = [
    ['$NOW', undefined],
    ['$NOW(-1 day)', -86_400_000],
    ['$NOW(+2 hours)', 7_200_000],
    ['$NOW(2h)', 7_200_000],
    ['$NOW(-90s)', -90_000],
    ['$NOW( -1 week )', -604_800_000],
  ];
  for (const [text, offsetMs] of offsets) {
    const value = offsetMs === undefined ? { dynamic: 'NOW' } : { dynamic: 'NOW', offsetMs };
    assert.equal(parse({ date_created: { _lt: text } }), cond('date_created', '_lt', { value }), text);
  }
  assert.equal(
    parse({ id: { _in: `${CARGO_IDS.a},$CURRENT_USER` } }),
    cond('id', '_in', { values: [CARGO_IDS.a, { dynamic: 'CURRENT_USER' }] }),
  );
  // Not type-checked at parse time: permissions are bound per request and must not fail a reader.
  assert.equal(
    parse({ crate_count: { _eq: '$CURRENT_USER' } }),
    cond('crate_count', '_eq', { value: { dynamic: 'CURRENT_USER' } }),
  );
});

test('near-miss dynamic values are refused, other $-strings are literals', () => {
  for (const text of [
    '$NOW()',
    '$NOW(soon)',
    '$NOW(- 1 day)',
    '$CURRENT_USER.role',
    '$NOW(1000000 years)',
    '$NOWISH',
    `$NOW(${'1'.repeat(200)})`,
  ]) {
    refused({ date_created: { _lt: text } }, { reason: 'INVALID_VALUE' }, text);
  }
  assert.equal(parse({ code: { _eq: '$current_user' } }), cond('code', '_eq', { value: '$current_user' }));
  assert.equal(parse({ code: { _eq: '$5' } }), cond('code', '_eq', { value: '$5' }));
});

test('limits may be tightened per call', () => {
  assert.throws(
    () => parseFilter({ crate_count: { _eq: 1 }, pallets: { _eq: 1 } }, cargosSchema, { maxConditions: 1 }),
    (error: DomainError) => error.extensions.reason === 'MAX_CONDITIONS',
  );
});

test.run();
