import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DomainError } from '../../../src/domain/errors.ts';
import { checkFilterBounds } from '../../../src/domain/query/filter-bounds.ts';
import { parseFilter } from '../../../src/domain/query/parse-filter.ts';
import { cargosSchema } from '../../support/cargos-schema.ts';

/** The refusal's reason and message, or null when there is none. */
function refusalOf(check: () => unknown): { reason: unknown; message: string } | null {
  try {
    check();
    return null;
  } catch (error) {
    if (!(error instanceof DomainError) || error.code !== 'INVALID_QUERY') throw error;
    return { reason: error.extensions.reason, message: error.message };
  }
}

const nested = (depth: number): object => {
  let filter: object = { crate_count: { _eq: 1 } };
  for (let level = 1; level < depth; level++) filter = { _and: [filter] };
  return filter;
};
const conditions = (count: number) => ({
  _or: Array.from({ length: count }, (_, i) => ({ crate_count: { _eq: i } })),
});
const pairs = (count: number) => ({
  _or: Array.from({ length: count }, (_, i) => ({ crate_count: { _gte: i, _lte: i } })),
});

test('without a collection, a filter is held to the nesting and conditions parseFilter allows', () => {
  const table: ReadonlyArray<readonly [string, unknown]> = [
    ['10 levels', nested(10)],
    ['11 levels', nested(11)],
    ['500 conditions', conditions(500)],
    ['501 conditions', conditions(501)],
    ['250 fields of two operators', pairs(250)],
    ['251 fields of two operators', pairs(251)],
    ['500 empty groups', { _and: Array.from({ length: 500 }, () => ({})) }],
    ['501 empty groups', { _and: Array.from({ length: 501 }, () => ({})) }],
    ['100,000 empty lists', { _and: Array.from({ length: 100_000 }, () => ({ _or: [] })) }],
    ['an empty filter', {}],
    ['two fields and a list', { crate_count: { _gt: 1 }, code: { _in: ['a', 'b'] }, _or: [{}] }],
  ];
  for (const [what, raw] of table) {
    const parsed = refusalOf(() => parseFilter(raw, cargosSchema));
    assert.equal(
      refusalOf(() => checkFilterBounds(raw)),
      parsed,
      what,
    );
  }
  assert.not.ok(
    refusalOf(() => checkFilterBounds(nested(10))),
    'the deepest a filter may be',
  );
  assert.is(refusalOf(() => checkFilterBounds(nested(11)))?.reason, 'MAX_DEPTH');
  assert.is(refusalOf(() => checkFilterBounds(conditions(501)))?.reason, 'MAX_CONDITIONS');
});

test.run();
