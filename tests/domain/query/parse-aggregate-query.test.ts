import fc from 'fast-check';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DomainError } from '../../../src/domain/errors.ts';
import type { AggregateQuery } from '../../../src/domain/query/aggregate-query.ts';
import { MAX_AGGREGATE_TERMS, parseAggregateQuery } from '../../../src/domain/query/parse-aggregate-query.ts';
import type { QueryLimits, RawItemQuery } from '../../../src/domain/query/parse-item-query.ts';
import { fieldOf } from '../../../src/domain/schema/collection-schema.ts';
import { cargosSchema, field } from '../../support/cargos-schema.ts';

const LIMITS: QueryLimits = { limitDefault: 100, limitMax: 1000 };
const parse = (raw: RawItemQuery) => parseAggregateQuery(raw, cargosSchema, LIMITS);

function refused(raw: RawItemQuery, reason?: string) {
  const label = JSON.stringify(raw).slice(0, 120);
  try {
    const query = parse(raw);
    assert.unreachable(`${label} parsed as ${JSON.stringify(query)}`);
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    assert.is(error.code, 'INVALID_QUERY', label);
    if (reason) assert.is(error.extensions.reason, reason, label);
  }
}

test('bracket, list and JSON forms of aggregate give the same terms', () => {
  const expected = [
    { fn: 'count', field: null },
    { fn: 'avg', field: 'temperature' },
    { fn: 'avg', field: 'price' },
  ];
  for (const aggregate of [
    { count: '*', avg: 'temperature,price' },
    { count: ['*'], avg: ['temperature', 'price'] },
    '{"count":"*","avg":["temperature","price"]}',
    '{"count":["*"],"avg":"temperature, price,temperature"}',
  ]) {
    assert.equal(parse({ aggregate }).aggregates, expected, JSON.stringify(aggregate));
  }
});

test('the rows parameters are a list’s; limit and offset count groups', () => {
  const query = parse({
    aggregate: { count: '*' },
    filter: '{"temperature":{"_gt":1}}',
    search: 'fish',
    limit: '10',
    page: '3',
  });
  assert.equal([query.search, query.limit, query.offset], ['fish', 10, 20]);
  assert.ok(query.filter);
  assert.is(parse({ aggregate: { count: '*' } }).limit, 100);
});

test('groupBy takes fields and date parts, answered under Directus’s keys', () => {
  assert.equal(parse({ groupBy: 'code, year(date_created),weekday(shipped_on)' }).groupBy, [
    { field: 'code', part: null, key: 'code' },
    { field: 'date_created', part: 'year', key: 'date_created_year' },
    { field: 'shipped_on', part: 'weekday', key: 'shipped_on_weekday' },
  ]);
  assert.equal(
    parse({ groupBy: ['hour(pickup_time)', 'second(departed_at)'] }).groupBy.map((g) => g.key),
    ['pickup_time_hour', 'departed_at_second'],
  );
});

test('sort names groupBy entries or aggregates; the rest of groupBy ends the order', () => {
  const query = parse({
    aggregate: { count: '*', sum: 'price' },
    groupBy: 'code,year(date_created),is_deleted',
    sort: '-sum.price,date_created_year,-count',
  });
  assert.equal(query.sort, [
    { target: { kind: 'aggregate', index: 1 }, direction: 'desc' },
    { target: { kind: 'group', index: 1 }, direction: 'asc' },
    { target: { kind: 'aggregate', index: 0 }, direction: 'desc' },
    { target: { kind: 'group', index: 0 }, direction: 'asc' },
    { target: { kind: 'group', index: 2 }, direction: 'asc' },
  ]);
  assert.equal(parse({ groupBy: 'year(date_created)', sort: '-year(date_created)' }).sort, [
    { target: { kind: 'group', index: 0 }, direction: 'desc' },
  ]);
});

test('bad aggregate input is INVALID_QUERY naming what is wrong', () => {
  refused({ aggregate: { median: 'temperature' } }, 'UNKNOWN_OPERATOR');
  refused({ aggregate: '{"__proto__":["id"]}' }, 'UNKNOWN_OPERATOR');
  refused({ aggregate: { sum: 'description' } }, 'INVALID_VALUE');
  refused({ aggregate: { avg: 'is_deleted' } }, 'INVALID_VALUE');
  refused({ aggregate: { min: 'manifest' } }, 'INVALID_VALUE');
  refused({ aggregate: { countDistinct: 'tags' } }, 'INVALID_VALUE');
  refused({ aggregate: { sum: '*' } }, 'INVALID_VALUE');
  refused({ aggregate: { countAll: 'id' } }, 'INVALID_VALUE');
  refused({ aggregate: { count: '*,id' } }, 'INVALID_VALUE');
  refused({ aggregate: { count: 'nope' } }, 'UNKNOWN_FIELD');
  refused({ aggregate: { count: 'shipment.id' } }, 'UNKNOWN_FIELD');
  refused({ aggregate: { count: '' } }, 'INVALID_VALUE');
  refused({ aggregate: { count: [['id']] } }, 'INVALID_VALUE');
  refused({ aggregate: '{"count":' }, 'INVALID_VALUE');
  refused({ aggregate: '["count"]' }, 'INVALID_VALUE');
  refused({ aggregate: 'null' }, 'INVALID_VALUE');
  refused({ aggregate: {} }, 'INVALID_VALUE');
});

test('more than MAX_AGGREGATE_TERMS terms is refused', () => {
  const wide = {
    name: 'wide',
    primaryKey: null,
    fields: Array.from({ length: MAX_AGGREGATE_TERMS / 2 + 1 }, (_, index) =>
      field(`n${index}`, 'integer', 'integer'),
    ),
  };
  const names = wide.fields.map(({ name }) => name).join(',');
  const aggregate = (functions: string[]) =>
    parseAggregateQuery({ aggregate: Object.fromEntries(functions.map((fn) => [fn, names])) }, wide, LIMITS);
  assert.is(aggregate(['sum']).aggregates.length, MAX_AGGREGATE_TERMS / 2 + 1);
  assert.throws(
    () => aggregate(['sum', 'avg']),
    (error: unknown) => error instanceof DomainError,
  );
});

test('bad groupBy and sort input is INVALID_QUERY', () => {
  refused({ groupBy: 'manifest' }, 'INVALID_VALUE');
  refused({ groupBy: 'hour(shipped_on)' }, 'INVALID_VALUE');
  refused({ groupBy: 'year(pickup_time)' }, 'INVALID_VALUE');
  refused({ groupBy: 'year(code)' }, 'INVALID_VALUE');
  refused({ groupBy: 'median(date_created)' }, 'UNKNOWN_OPERATOR');
  refused({ groupBy: 'code,code' }, 'INVALID_VALUE');
  refused({ groupBy: { a: 'code' } }, 'INVALID_VALUE');
  refused({ groupBy: 'code', sort: 'temperature' }, 'UNKNOWN_FIELD');
  refused({ groupBy: 'code', sort: 'code,-code' }, 'INVALID_VALUE');
  refused({ aggregate: { count: '*' }, sort: 'sum.price' }, 'UNKNOWN_FIELD');
  for (const name of ['fields', 'meta', 'after', 'alias']) {
    refused({ aggregate: { count: '*' }, [name]: 'id' }, 'UNSUPPORTED_PARAMETER');
  }
  refused({ aggregate: { count: '*' }, deep: '{}' }, 'UNSUPPORTED_PARAMETER');
});

test('an unknown sort key is answered with what this query can be sorted by', () => {
  try {
    parse({
      aggregate: { count: '*', max: 'temperature' },
      groupBy: 'year(date_created)',
      sort: 'sum.price',
    });
    assert.unreachable('parsed');
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    assert.match(error.message, '(here: date_created_year, count, max.temperature)');
  }
});

/** What a parsed query promises: known fields, a total order, keys unique. */
function assertValid(query: AggregateQuery) {
  for (const term of query.aggregates) if (term.field !== null) assert.ok(fieldOf(cargosSchema, term.field));
  for (const term of query.groupBy) assert.ok(fieldOf(cargosSchema, term.field));
  assert.is(new Set(query.groupBy.map((term) => term.key)).size, query.groupBy.length);
  for (const index of query.groupBy.keys()) {
    assert.ok(query.sort.some(({ target }) => target.kind === 'group' && target.index === index));
  }
}

const piece = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.constantFrom('*', 'id', 'price', 'code', 'year(date_created)', 'count', '-count', 'sum.price', '{"'),
);
const value: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    piece,
    fc.array(piece, { maxLength: 3 }),
    fc.dictionary(fc.constantFrom('count', 'sum', 'avg', 'min', 'nope', '__proto__'), tie('value'), {
      maxKeys: 3,
    }),
    fc.constantFrom('{"count":["*"]}', '{"sum":"price,id"}', '{"max":[1]}', '[]', 'null', '{"min":{}}'),
  ),
})).value;

test('any parameters give a valid aggregate query or INVALID_QUERY, never an exception', () => {
  fc.assert(
    fc.property(
      fc.dictionary(
        fc.constantFrom('aggregate', 'groupBy', 'sort', 'limit', 'filter', 'search', 'meta'),
        value,
        { maxKeys: 4 },
      ),
      (raw) => {
        try {
          assertValid(parse(raw));
        } catch (error) {
          if (!(error instanceof DomainError) || error.code !== 'INVALID_QUERY') throw error;
          assert.ok(error.message.length < 400);
        }
      },
    ),
    { seed: 20_260_115, numRuns: 3000 },
  );
});

test.run();
