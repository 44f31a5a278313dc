import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DomainError } from '../../../src/domain/errors.ts';
import { MATCH_NONE } from '../../../src/domain/query/filter.ts';
import {
  parseItemQuery,
  type QueryLimits,
  type RawItemQuery,
} from '../../../src/domain/query/parse-item-query.ts';
import { searchFilter } from '../../../src/domain/query/search-filter.ts';
import { cargosSchema } from '../../support/cargos-schema.ts';

const LIMITS: QueryLimits = { limitDefault: 100, limitMax: 1000 };
const UNLIMITED: QueryLimits = { limitDefault: 100, limitMax: -1 };
const NO_META = {
  totalCount: false,
  filterCount: false,
  estimatedTotalCount: false,
  estimatedFilterCount: false,
  next: false,
};
const parse = (raw: RawItemQuery, limits = LIMITS) => parseItemQuery(raw, cargosSchema, limits);

function refused(raw: RawItemQuery, reason?: string, limits = LIMITS) {
  const label = JSON.stringify(raw).slice(0, 120);
  try {
    const query = parse(raw, limits);
    assert.unreachable(`${label} parsed as ${JSON.stringify(query)}`);
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    assert.is(error.code, 'INVALID_QUERY', label);
    if (reason) assert.is(error.extensions.reason, reason, label);
  }
}

test('no parameters: every field, no filter or sort, the default limit, no counts', () => {
  assert.equal(parse({}), {
    fields: '*',
    filter: null,
    sort: [],
    limit: 100,
    offset: 0,
    after: null,
    search: null,
    meta: NO_META,
  });
});

test('fields: comma list or repeated, * for all, duplicates once, entries trimmed', () => {
  const table: ReadonlyArray<readonly [unknown, unknown]> = [
    ['id,description', ['id', 'description']],
    [
      ['id', 'description'],
      ['id', 'description'],
    ],
    [
      ['id,code', 'description'],
      ['id', 'code', 'description'],
    ],
    ['id, description', ['id', 'description']],
    ['id,id', ['id']],
    ['*', '*'],
    [['*'], '*'],
    ['*,id', ['*', 'id']],
    ['*,*', '*'],
  ];
  for (const [fields, expected] of table)
    assert.equal(parse({ fields }).fields, expected, JSON.stringify(fields));
});

test('fields: unknown, relational, empty or malformed entries are refused', () => {
  refused({ fields: 'id,nope' }, 'UNKNOWN_FIELD');
  refused({ fields: 'owner.name' }, 'UNKNOWN_FIELD');
  refused({ fields: '*.*' }, 'UNKNOWN_FIELD');
  refused({ fields: '*,nope' }, 'UNKNOWN_FIELD');
  refused({ fields: '__proto__' }, 'UNKNOWN_FIELD');
  for (const fields of ['', 'id,', ',id', 'id,,code', [], [''], { a: 'id' }, [['id']]])
    refused({ fields }, 'INVALID_VALUE');
});

test('sort: comma list, - for descending, in order', () => {
  assert.equal(parse({ sort: '-date_created,id' }).sort, [
    { field: 'date_created', direction: 'desc' },
    { field: 'id', direction: 'asc' },
  ]);
  assert.equal(parse({ sort: ['temperature', '-code'] }).sort, [
    { field: 'temperature', direction: 'asc' },
    { field: 'code', direction: 'desc' },
  ]);
});

test('sort: SQL\'s "name desc" is an unknown field whose message shows the "-name" form', () => {
  for (const [sort, hint] of [
    ['code desc', '"-code"'],
    ['code ASC', '"code"'],
  ] as const) {
    try {
      parse({ sort });
      assert.unreachable(`${sort} parsed`);
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      assert.is(error.extensions.reason, 'UNKNOWN_FIELD');
      assert.ok(error.message.includes(`write ${hint}`), error.message);
    }
  }
});

test('sort: unknown, duplicated, unsortable or empty entries are refused', () => {
  refused({ sort: 'nope' }, 'UNKNOWN_FIELD');
  refused({ sort: '--id' }, 'UNKNOWN_FIELD');
  refused({ sort: '+id' }, 'UNKNOWN_FIELD');
  refused({ sort: 'id,-id' }, 'INVALID_VALUE');
  refused({ sort: 'code,code' }, 'INVALID_VALUE');
  refused({ sort: 'manifest' }, 'INVALID_VALUE');
  refused({ sort: 'tags' }, 'INVALID_VALUE');
  refused({ sort: '' }, 'INVALID_VALUE');
  refused({ sort: '-' }, 'UNKNOWN_FIELD');
  refused({ sort: '?' }, 'UNKNOWN_FIELD');
});

test('limit: default, 0, up to the max; above it refused, never clamped', () => {
  assert.is(parse({ limit: '25' }).limit, 25);
  assert.is(parse({ limit: '0' }).limit, 0);
  assert.is(parse({ limit: '1000' }).limit, 1000);
  assert.is(parse({ limit: 7 }).limit, 7);
  refused({ limit: '1001' }, 'LIMIT_ABOVE_MAX');
  refused({ limit: '99999999999999' }, 'LIMIT_ABOVE_MAX');
  for (const limit of ['-2', '1.5', 'ten', '', ' 5', '1e2', '0x10', ['1', '2'], { a: '1' }]) {
    refused({ limit }, 'INVALID_VALUE');
  }
});

test('limit=-1 means no limit only when limitMax is -1', () => {
  refused({ limit: '-1' }, 'LIMIT_ABOVE_MAX');
  assert.is(parse({ limit: '-1' }, UNLIMITED).limit, null);
  assert.is(parse({ limit: '5000000' }, UNLIMITED).limit, 5_000_000);
  assert.is(parse({}, UNLIMITED).limit, 100);
});

test('offset and page', () => {
  assert.is(parse({ offset: '30' }).offset, 30);
  assert.is(parse({ offset: '0' }).offset, 0);
  assert.is(parse({ page: '1' }).offset, 0);
  assert.is(parse({ page: '3', limit: '20' }).offset, 40);
  assert.is(parse({ page: '3' }).offset, 200);
  assert.is(parse({ page: '1', limit: '-1' }, UNLIMITED).offset, 0);
  refused({ page: '2', limit: '-1' }, 'INVALID_VALUE', UNLIMITED);
  refused({ page: '0' }, 'INVALID_VALUE');
  refused({ page: '-1' }, 'INVALID_VALUE');
  refused({ offset: '-1' }, 'INVALID_VALUE');
  refused({ offset: '1.5' }, 'INVALID_VALUE');
  refused({ offset: '0', page: '1' }, 'INVALID_VALUE');
  refused({ page: ['1', '2'] }, 'INVALID_VALUE');
  refused({ page: '999999999999999', limit: '1000' }, 'INVALID_VALUE');
});

test('search: up to 256 characters (code points); empty is no search', () => {
  assert.is(parse({ search: 'fish' }).search, 'fish');
  assert.is(parse({ search: '' }).search, null);
  assert.is(parse({ search: 'x'.repeat(256) }).search, 'x'.repeat(256));
  assert.is(parse({ search: '🐟'.repeat(256) }).search, '🐟'.repeat(256));
  refused({ search: 'x'.repeat(257) }, 'MAX_SEARCH_LENGTH');
  refused({ search: ['a', 'b'] }, 'INVALID_VALUE');
  refused({ search: 'nul\u0000' }, 'INVALID_VALUE');
});

test('meta: total_count, filter_count, * or a list of them', () => {
  const table: ReadonlyArray<readonly [unknown, boolean, boolean]> = [
    ['total_count', true, false],
    ['filter_count', false, true],
    ['*', true, true],
    ['total_count,filter_count', true, true],
    [['total_count', 'filter_count'], true, true],
  ];
  for (const [meta, totalCount, filterCount] of table)
    assert.equal(parse({ meta }).meta, { ...NO_META, totalCount, filterCount });
  for (const meta of ['count', '', 'total_count,', { a: 'b' }, 'estimated', 'cursor'])
    refused({ meta }, 'INVALID_VALUE');
});

test('meta: estimates and the next cursor are asked for by name, never by *', () => {
  assert.equal(parse({ meta: 'estimated_total_count,estimated_filter_count,next' }).meta, {
    ...NO_META,
    estimatedTotalCount: true,
    estimatedFilterCount: true,
    next: true,
  });
  assert.equal(parse({ meta: '*,next' }).meta, {
    ...NO_META,
    totalCount: true,
    filterCount: true,
    next: true,
  });
  assert.equal(parse({ meta: '*' }).meta, { ...NO_META, totalCount: true, filterCount: true });
});

test('after: a base64url cursor given once, never beside offset or page', () => {
  assert.is(parse({ after: 'AbC-_09' }).after, 'AbC-_09');
  assert.is(parse({ after: 'AbC', limit: '5', meta: 'next' }).after, 'AbC');
  for (const after of ['', 'a+b', 'a/b', 'a=', 'a b', ['a', 'b'], { a: 'b' }]) {
    refused({ after }, typeof after === 'string' ? 'INVALID_CURSOR' : 'INVALID_VALUE');
  }
  refused({ after: 'abc', offset: '0' }, 'INVALID_VALUE');
  refused({ after: 'abc', page: '1' }, 'INVALID_VALUE');
});

test('filter: JSON text or bracket object; {} is no filter; errors are INVALID_QUERY', () => {
  assert.equal(parse({ filter: '{"temperature":{"_gt":10}}' }).filter, {
    kind: 'condition',
    field: 'temperature',
    operator: '_gt',
    value: 10,
  });
  assert.equal(parse({ filter: { temperature: { _gt: '10' } } }).filter, {
    kind: 'condition',
    field: 'temperature',
    operator: '_gt',
    value: 10,
  });
  assert.is(parse({ filter: '{}' }).filter, null);
  assert.equal(parse({ filter: { id: { _in: '' } } }).filter, MATCH_NONE);
  refused({ filter: ['{}', '{}'] }, 'INVALID_VALUE');
  refused({ filter: '' }, 'INVALID_VALUE');
  refused({ filter: '{"nope":{"_eq":1}}' }, 'UNKNOWN_FIELD');
});

test('unknown parameters are ignored; Directus ones we do not implement are refused', () => {
  assert.is(parse({ access_token: 'x', export: 'csv', _: '123', constructor: 'x' }).limit, 100);
  for (const name of ['alias', 'version']) refused({ [name]: 'x' }, 'UNSUPPORTED_PARAMETER');
});

test('parameters are read from own properties only', () => {
  const inherited = Object.create({ limit: '5000' }) as RawItemQuery;
  assert.is(parse(inherited).limit, 100);
});

test('searchFilter is an OR of _icontains over the textual fields; none → MATCH_NONE', () => {
  const fields = cargosSchema.fields.filter((field) =>
    ['description', 'code', 'crate_count'].includes(field.name),
  );
  assert.equal(searchFilter('50%', fields), {
    kind: 'or',
    nodes: [
      { kind: 'condition', field: 'description', operator: '_icontains', value: '50%' },
      { kind: 'condition', field: 'code', operator: '_icontains', value: '50%' },
    ],
  });
  assert.equal(searchFilter('x', fields.slice(0, 1)), {
    kind: 'condition',
    field: 'description',
    operator: '_icontains',
    value: 'x',
  });
  assert.equal(searchFilter('x', []), MATCH_NONE);
  assert.equal(
    searchFilter(
      'x',
      cargosSchema.fields.filter((field) => field.type === 'integer'),
    ),
    MATCH_NONE,
  );
});

test.run();
