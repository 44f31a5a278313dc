import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { ErrorBody } from '../http/scenario.ts';
import { type Arena, CARGO, expectError, openMemoryArena, q } from './attack-kit.ts';

/**
 * Object.prototype's names (`__proto__`, `constructor`, `toString`, …) are no field, operator or parameter:
 * in `filter` (bracket and JSON form), `fields`, `sort` and `deep` they are refused with 400 INVALID_QUERY
 * like any unknown name — never dropped by the query-string parser to answer an unfiltered list.
 */
const test = suite<{ arena: Arena }>('prototype names in query strings');

const PROTOTYPE_NAMES = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf'];

test.before(async (context) => {
  context.arena = await openMemoryArena();
});
test.after(({ arena }) => arena.app.close());

/** A list read, and, for `fields` (the only parameter a single read takes), a single read too. */
async function expectUnknown(arena: Arena, query: string, field?: string) {
  const paths = query.startsWith('fields')
    ? ['/items/cargos', `/items/cargos/${CARGO.fish}`]
    : ['/items/cargos'];
  for (const token of [arena.admin, arena.operator]) {
    for (const path of paths) {
      const response = await arena.app.request('GET', `${path}?${query}`, { token });
      expectError(response, 400, 'INVALID_QUERY', `${path}?${query}`);
      if (field) assert.is((response.body as ErrorBody).errors[0]!.extensions.field, field, query);
    }
  }
}

test('filter[__proto__][x]=1 → 400 INVALID_QUERY UNKNOWN_FIELD, not an unfiltered list', async ({
  arena,
}) => {
  for (const query of [
    'filter[__proto__][x]=1',
    'filter[__proto__][_eq]=1',
    'filter%5B__proto__%5D%5B_eq%5D=1',
    'filter[%5F%5Fproto%5F%5F][_eq]=1',
    'filter[__proto__]=1',
    'filter[__proto__',
    'filter[_and][0][__proto__][_eq]=1',
    'filter[_or][0][description][_eq]=x&filter[_or][1][__proto__][_eq]=1',
  ]) {
    await expectUnknown(arena, query, '__proto__');
    const response = await arena.app.request('GET', `/items/cargos?${query}`, { token: arena.admin });
    assert.is((response.body as ErrorBody).errors[0]!.extensions.reason, 'UNKNOWN_FIELD', query);
  }
});

test('filter[description][__proto__]=1 beside a real operator → 400, not the other operator alone', async ({
  arena,
}) => {
  await expectUnknown(arena, 'filter[description][__proto__]=1&filter[description][_eq]=Bananas');
  await expectUnknown(arena, 'filter[description][_in][__proto__]=x');
});

test('the other prototype names as filter fields and operators (bracket and JSON form) → 400', async ({
  arena,
}) => {
  for (const name of PROTOTYPE_NAMES) {
    await expectUnknown(arena, `filter[${name}][_eq]=1`);
    await expectUnknown(arena, `filter=${q({ [name]: { _eq: 1 } })}`);
    await expectUnknown(arena, `filter[description][${name}]=1`);
    await expectUnknown(arena, `filter=${q({ description: { [name]: 1 } })}`);
    await expectUnknown(arena, `filter=${q({ _and: [{ [name]: { _null: true } }] })}`);
  }
});

test('prototype names in fields, sort and deep → 400', async ({ arena }) => {
  for (const name of PROTOTYPE_NAMES) {
    await expectUnknown(arena, `fields=${name}`, name);
    await expectUnknown(arena, `fields=id,${name}`, name);
    await expectUnknown(arena, `fields[]=${name}`, name);
    await expectUnknown(arena, `sort=${name}`, name);
    await expectUnknown(arena, `sort=-${name}`, name);
    await expectUnknown(arena, `deep[${name}][_limit]=1`);
    await expectUnknown(arena, `fields[${name}]=id`);
  }
});

test('a top-level __proto__ parameter is an unknown parameter, ignored like any other', async ({ arena }) => {
  for (const query of ['__proto__=1', '__proto__[polluted]=1', 'constructor[prototype][x]=1']) {
    const response = await arena.app.request('GET', `/items/cargos?${query}`, { token: arena.admin });
    assert.is(response.status, 200, `${query}: ${response.text}`);
    assert.is((response.body as unknown[]).length, 3, query);
    assert.not.ok('polluted' in Object.prototype);
  }
});

test.run();
