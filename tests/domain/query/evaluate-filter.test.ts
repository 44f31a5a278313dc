import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { bindDynamicValues } from '../../../src/domain/query/bind-dynamic-values.ts';
import { matchesFilter } from '../../../src/domain/query/evaluate-filter.ts';
import { type BoundFilterNode, MATCH_ALL, MATCH_NONE } from '../../../src/domain/query/filter.ts';
import { parseFilter } from '../../../src/domain/query/parse-filter.ts';
import { CARGO_IDS, CARGO_USERS, cargoRows, cargosSchema } from '../../support/cargos-schema.ts';
import { canonicalRows } from './canonical-rows.ts';

const rows = canonicalRows(cargosSchema, cargoRows);
const letterOf = new Map<string, string>(Object.entries(CARGO_IDS).map(([letter, id]) => [id, letter]));
const context = { user: CARGO_USERS.ada, role: null, now: new Date('2024-03-15T12:00:00Z') };

/** The cargos (by letter, a–d) a filter matches. */
function matching(raw: unknown): string {
  const node = bindDynamicValues(parseFilter(raw, cargosSchema), context, cargosSchema);
  return rows
    .filter((row) => matchesFilter(node, row, cargosSchema))
    .map((row) => letterOf.get(row.id as string))
    .join('');
}

// a: -18.5 °C fish; b: 13 °C bananas; c: every nullable field null, description ''; d: 4 °C, description null.
const TABLE: ReadonlyArray<readonly [string, unknown, string]> = [
  ['_eq compares numbers', { temperature: { _eq: 13 } }, 'b'],
  ['_neq does not match null', { temperature: { _neq: 13 } }, 'ad'],
  ['_lt', { temperature: { _lt: 4 } }, 'a'],
  ['_lte', { temperature: { _lte: 4 } }, 'ad'],
  ['_gt', { temperature: { _gt: 4 } }, 'b'],
  ['_gte', { temperature: { _gte: -18.5 } }, 'abd'],
  ['_in', { temperature: { _in: [4, 13] } }, 'bd'],
  ['_nin does not match null', { temperature: { _nin: [4] } }, 'ab'],
  ['empty _nin matches every row but nulls', { temperature: { _nin: [] } }, 'abd'],
  ['empty _in matches nothing', { temperature: { _in: [] } }, ''],
  ['_null', { temperature: { _null: true } }, 'c'],
  ['_nnull', { temperature: { _nnull: true } }, 'abd'],
  ['_empty on text is null or empty', { description: { _empty: true } }, 'cd'],
  ['_nempty on text is neither', { description: { _nempty: true } }, 'ab'],
  ['_empty on a number is null', { temperature: { _empty: true } }, 'c'],
  ['_nempty on a number is not null', { temperature: { _nempty: true } }, 'abd'],
  ['_contains is a literal substring (% is no wildcard)', { description: { _contains: '100%' } }, 'a'],
  ['_contains: _ is no wildcard', { code: { _contains: '_0' } }, 'a'],
  ['_contains is case-sensitive', { description: { _contains: 'FISH' } }, ''],
  ['_contains the empty string matches every non-null', { description: { _contains: '' } }, 'abc'],
  ['_ncontains does not match null', { description: { _ncontains: 'fish' } }, 'bc'],
  ['_icontains ignores case', { description: { _icontains: 'FISH' } }, 'a'],
  ['_icontains folds non-ASCII letters', { code: { _icontains: 'éclairs' } }, 'd'],
  ['_starts_with', { code: { _starts_with: 'FR' } }, 'b'],
  ['_nstarts_with does not match null', { code: { _nstarts_with: 'FR' } }, 'ad'],
  ['_ends_with', { code: { _ends_with: '02' } }, 'b'],
  ['_nends_with does not match null', { code: { _nends_with: '02' } }, 'ad'],
  ['_between is inclusive', { crate_count: { _between: [0, 12] } }, 'ad'],
  ['_nbetween does not match null', { crate_count: { _nbetween: [0, 12] } }, 'b'],
  ['_between with the bounds reversed matches nothing, like SQL', { crate_count: { _between: [12, 0] } }, ''],
  ['int8 compares exactly beyond 2^53', { serial_number: { _gt: '9007199254740992' } }, 'a'],
  ['int8 equality beyond 2^53', { serial_number: { _eq: '9007199254740993' } }, 'a'],
  ['int8 at its minimum', { serial_number: { _lt: '0' } }, 'd'],
  ['numeric compares exactly', { price: { _gt: '12345678901.22' } }, 'a'],
  ['numeric equality ignores trailing zeros', { price: { _eq: '0.1' } }, 'd'],
  ['numeric against a JSON number', { price: { _lt: 20 } }, 'bd'],
  ['real compares as stored', { weight_kg: { _eq: 0.25 } }, 'd'],
  ['timestamp fractions order after whole seconds', { date_created: { _gt: '2024-03-15T00:00:00' } }, 'd'],
  ['timestamp from a date means midnight', { date_created: { _eq: '2024-03-15' } }, 'c'],
  [
    'timestamptz compares instants across offsets',
    { departed_at: { _eq: '2024-01-10T09:00:00+02:00' } },
    'a',
  ],
  ['timestamptz ordering', { departed_at: { _lt: '2024-03-15T00:00:00Z' } }, 'ab'],
  ['date range', { shipped_on: { _between: ['2024-02-01', '2024-03-31'] } }, 'bd'],
  ['time with microseconds', { pickup_time: { _gt: '12:00' } }, 'd'],
  ['boolean _eq', { is_deleted: { _eq: true } }, 'c'],
  ['boolean _neq', { is_deleted: { _neq: 'true' } }, 'abd'],
  ['json equality ignores key order', { manifest: { _eq: { sealed: true, items: ['cod', 'hake'] } } }, 'a'],
  ['json string', { manifest: { _eq: 'fragile' } }, 'd'],
  ['json _nin', { manifest: { _nin: [['bananas']] } }, 'ad'],
  ['uuid ignores case', { user_created: { _eq: CARGO_USERS.ada.toUpperCase() } }, 'ad'],
  ['text orders by code point (C collation): É after Z', { code: { _gt: 'Z' } }, 'd'],
  ['unknown types answer null tests', { tags: { _null: true } }, 'bc'],
  ['_or', { _or: [{ temperature: { _lt: 0 } }, { is_deleted: { _eq: true } }] }, 'ac'],
  ['fields in one object are ANDed', { temperature: { _gt: 0 }, code: { _starts_with: 'F' } }, 'b'],
  [
    'nested groups',
    { _and: [{ _or: [{ pallets: { _lt: 0 } }, { pallets: { _gt: 5 } }] }, { crate_count: { _gte: 0 } }] },
    'bd',
  ],
  ['$CURRENT_USER', { user_created: { _eq: '$CURRENT_USER' } }, 'ad'],
  ['$NOW on a timestamp', { date_created: { _lt: '$NOW(-30 days)' } }, 'a'],
];

test('each operator matches exactly the rows PostgreSQL would return', () => {
  for (const [rule, filter, expected] of TABLE) assert.is(matching(filter), expected, rule);
});

test('a null field matches only _null and _empty, never a negation', () => {
  const nullRow = rows[2]!;
  const negations = {
    _neq: 1,
    _nin: [1],
    _nbetween: [1, 2],
  };
  for (const [operator, value] of Object.entries(negations)) {
    assert.not.ok(
      matchesFilter(bound({ crate_count: { [operator]: value } }), nullRow, cargosSchema),
      operator,
    );
  }
  for (const operator of ['_ncontains', '_nstarts_with', '_nends_with']) {
    assert.not.ok(matchesFilter(bound({ code: { [operator]: 'x' } }), nullRow, cargosSchema), operator);
  }
  assert.ok(matchesFilter(bound({ code: { _null: true } }), nullRow, cargosSchema));
  assert.ok(matchesFilter(bound({ code: { _empty: true } }), nullRow, cargosSchema));
});

test('MATCH_ALL matches every row and MATCH_NONE none', () => {
  for (const row of rows) {
    assert.ok(matchesFilter(MATCH_ALL, row, cargosSchema));
    assert.not.ok(matchesFilter(MATCH_NONE, row, cargosSchema));
  }
});

test('a missing field reads as null, and inherited properties are not fields', () => {
  const schema = {
    ...cargosSchema,
    fields: [...cargosSchema.fields, { ...cargosSchema.fields[3]!, name: 'constructor' }],
  };
  const node = bindDynamicValues(parseFilter({ constructor: { _nnull: true } }, schema), context, schema);
  assert.not.ok(matchesFilter(node, {}, schema));
  assert.ok(matchesFilter(node, { constructor: 'x' }, schema));
});

function bound(raw: unknown): BoundFilterNode {
  return bindDynamicValues(parseFilter(raw, cargosSchema), context, cargosSchema);
}

test.run();
