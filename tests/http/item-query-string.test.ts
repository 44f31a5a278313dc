import qs from 'qs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { HttpContext } from '../../src/adapters/http/http-state.ts';
import {
  credentialQuery,
  flatQuery,
  itemQuery,
  QS_OPTIONS,
  singleParameter,
} from '../../src/adapters/http/item-query-string.ts';

/** What itemQuery answers, or the error code it throws. */
function outcome(read: () => unknown): unknown {
  try {
    return { value: read() };
  } catch (error) {
    return { error: (error as { code?: string }).code ?? String(error) };
  }
}

const viaQs = (querystring: string) => outcome(() => qs.parse(querystring, QS_OPTIONS));

const CASES = [
  '',
  'limit=100',
  'limit=100&offset=20&fields=id,name',
  'filter=%7B%22a%22%3A%7B%22_eq%22%3A1%7D%7D',
  'a',
  'a=',
  '=x',
  'a=1&&b=2',
  'a=1&a=2',
  'search=caf%C3%A9+au+lait',
  'search=%FF',
  'search=50%',
  '__proto__=1',
  'constructor=1&toString=2',
  'a.b=1',
  'a=b=c',
];

test('flat query strings read as qs reads them', () => {
  for (const querystring of CASES) {
    const fast = outcome(() => flatQuery(querystring));
    const slow = viaQs(querystring);
    if ((fast as { value?: unknown }).value === undefined && 'value' in (fast as object)) continue;
    assert.equal(JSON.stringify(fast), JSON.stringify(slow), querystring);
  }
});

test('random flat query strings read as qs reads them', () => {
  const alphabet = ['a', 'b', '=', '&', '%', '2', '0', 'C', '3', 'A', '9', '+', '.', '_', '~', 'é', ' '];
  let seed = 14;
  const random = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  for (let n = 0; n < 5000; n++) {
    const length = Math.floor(random() * 12);
    let querystring = '';
    for (let i = 0; i < length; i++) querystring += alphabet[Math.floor(random() * alphabet.length)];
    const fast = outcome(() => flatQuery(querystring)) as { value?: unknown; error?: unknown };
    if ('value' in fast && fast.value === undefined) continue;
    assert.equal(JSON.stringify(fast), JSON.stringify(viaQs(querystring)), querystring);
  }
});

test('a repeated key or a bracket goes to qs', () => {
  assert.is(flatQuery('a=1&a=2'), undefined);
  assert.equal({ ...itemQuery({ querystring: 'a=1&a=2' } as HttpContext) }, { a: ['1', '2'] });
  assert.equal(JSON.parse(JSON.stringify(itemQuery({ querystring: 'filter[id][_eq]=1' } as HttpContext))), {
    filter: { id: { _eq: '1' } },
  });
});

test('past 1,000 pairs or 500 entries of a list, the query is refused, not cut short', () => {
  const pairs = (count: number) => Array.from({ length: count }, (_, index) => `x${index}=1&`).join('');
  const within = `${pairs(999)}filter[id][_eq]=1`;
  assert.equal(JSON.parse(JSON.stringify(itemQuery({ querystring: within } as HttpContext))).filter, {
    id: { _eq: '1' },
  });
  for (const querystring of [
    `${pairs(1000)}filter[id][_eq]=1`,
    `${pairs(1000)}limit=1`,
    `${'&'.repeat(1000)}filter[id][_eq]=1`,
    'fields[]=id&'.repeat(501),
    'sort=id&'.repeat(501),
    'filter[id][_in][600]=1',
  ]) {
    assert.equal(
      outcome(() => itemQuery({ querystring } as HttpContext)),
      { error: 'INVALID_QUERY' },
      querystring,
    );
  }
});

test('a parameter read as one value is refused as a list or an object', () => {
  const single = (querystring: string) =>
    outcome(() => singleParameter({ querystring } as HttpContext, 'mode'));
  assert.equal(single('mode=batch'), { value: 'batch' });
  assert.equal(single('other=1'), { value: undefined });
  for (const querystring of [
    'mode=a&mode=b',
    'mode[]=batch',
    'mode[a]=batch',
    'mode%5B%5D=batch',
    '[mode]=a&mode=b',
  ]) {
    assert.equal(single(querystring), { error: 'INVALID_QUERY' }, querystring);
  }
});

test('the credential is read as qs reads it, also from a query the routes refuse', () => {
  const token = (querystring: string) => credentialQuery(querystring).access_token;
  assert.is(token('access_token=t&search=%FF'), 't');
  assert.is(token(`${'x=1&'.repeat(1000)}access_token=t`), 't');
  assert.equal(token('access_token[]=t'), ['t']);
  assert.equal(token('filter[__proto__][a]=1&access_token=t'), 't');
});

test.run();
