import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import {
  BATCH_MAX,
  CALLER,
  CARGO,
  CARGO_ROWS,
  type Grant,
  MISSING,
  NOT_DELETED,
  refusedUnchanged,
  type WriteFixture,
  writeFixture,
} from './write-fixture.ts';

const remove = suite('DeleteItemsHandler: removing items the caller may read and delete');

const ALL_IDS = CARGO_ROWS.map((row) => row.id).sort();
const without = (...gone: string[]) => ALL_IDS.filter((id) => !gone.includes(id));

/**
 * The operators' rights unless a test says otherwise: read every cargo, delete the ones not archived
 * (so coal is readable but not deletable). Delete permissions name no fields: `fields` is null.
 */
async function fixtureWithOperators({ read = {}, erase = {} }: { read?: Grant; erase?: Grant } = {}) {
  const fixture = await writeFixture();
  await fixture.grant('read', read);
  await fixture.grant('delete', { permissions: NOT_DELETED, fields: null, ...erase });
  return fixture;
}

const TARGETS: Array<{ name: string; target: { key: string } | { body: unknown }; gone: string[] }> = [
  { name: 'one key in the path', target: { key: CARGO.apples }, gone: [CARGO.apples] },
  {
    name: 'an array of keys',
    target: { body: [CARGO.eggs, CARGO.apples] },
    gone: [CARGO.eggs, CARGO.apples],
  },
  {
    name: '{ keys }',
    target: { body: { keys: [CARGO.bananas, CARGO.dates] } },
    gone: [CARGO.bananas, CARGO.dates],
  },
  {
    name: '{ query: { filter } }: matching rows only',
    target: { body: { query: { filter: { temperature: { _lt: 10 } } } } },
    gone: [CARGO.apples, CARGO.eggs],
  },
  { name: 'an empty array: nothing', target: { body: [] }, gone: [] },
  {
    name: 'a query matching nothing: nothing',
    target: { body: { query: { filter: { label: { _eq: 'None' } } } } },
    gone: [],
  },
];

for (const { name, target, gone } of TARGETS) {
  remove(`deleting by ${name} removes exactly those rows`, async () => {
    const fixture = await fixtureWithOperators();
    await fixture.remove(CALLER.ada, target);
    assert.equal(fixture.ids(), without(...gone));
  });
}

remove('a delete permission with fields null still deletes: fields do not matter to delete', async () => {
  const fixture = await writeFixture();
  await fixture.grant('read');
  await fixture.grant('delete', { fields: null });
  await fixture.remove(CALLER.ada, { key: CARGO.coal });
  assert.equal(fixture.ids(), without(CARGO.coal));
});

remove('admins delete any row without any permission', async () => {
  const fixture = await writeFixture();
  await fixture.remove(CALLER.admin, { body: [CARGO.coal, CARGO.apples] });
  assert.equal(fixture.ids(), without(CARGO.coal, CARGO.apples));
});

const NOT_FOUND_KEYS: Array<{ name: string; key: string }> = [
  { name: 'that no row has', key: MISSING },
  { name: 'outside the read filter (archived)', key: CARGO.coal },
  { name: 'that is no uuid', key: 'apples' },
  { name: 'that is empty', key: '' },
];

for (const { name, key } of NOT_FOUND_KEYS) {
  remove(`a key ${name} is NOT_FOUND, nothing deleted`, async () => {
    const fixture = await fixtureWithOperators({ read: { permissions: NOT_DELETED } });
    await refusedUnchanged(fixture, () => fixture.remove(CALLER.ada, { key }), 'NOT_FOUND');
    await refusedUnchanged(fixture, () => fixture.remove(CALLER.ada, { body: [key] }), 'NOT_FOUND');
  });
}

remove('admins get NOT_FOUND for a missing or malformed key too', async () => {
  const fixture = await writeFixture();
  await refusedUnchanged(fixture, () => fixture.remove(CALLER.admin, { key: MISSING }), 'NOT_FOUND');
  await refusedUnchanged(fixture, () => fixture.remove(CALLER.admin, { key: '1' }), 'NOT_FOUND');
});

remove('a row the caller may read but is outside the delete permission is FORBIDDEN', async () => {
  const fixture = await fixtureWithOperators();
  await refusedUnchanged(fixture, () => fixture.remove(CALLER.ada, { key: CARGO.coal }), 'FORBIDDEN');
});

remove('for anonymous callers with public permissions, the same refusal is UNAUTHENTICATED', async () => {
  const fixture = await fixtureWithOperators({ read: { role: null }, erase: { role: null } });
  await refusedUnchanged(
    fixture,
    () => fixture.remove(CALLER.anonymous, { key: CARGO.coal }),
    'UNAUTHENTICATED',
  );
  await fixture.remove(CALLER.anonymous, { key: CARGO.apples });
  assert.equal(fixture.ids(), without(CARGO.apples));
});

const WITHOUT_PERMISSION: Array<{ who: keyof typeof CALLER; code: string }> = [
  { who: 'anonymous', code: 'UNAUTHENTICATED' },
  { who: 'carol', code: 'FORBIDDEN' },
  { who: 'vic', code: 'FORBIDDEN' },
];

for (const { who, code } of WITHOUT_PERMISSION) {
  remove(`deleting without a delete permission of one's own is ${code} for ${who}`, async () => {
    const fixture = await fixtureWithOperators();
    for (const role of [null, CALLER.vic.role]) await fixture.grant('read', { role });
    await refusedUnchanged(fixture, () => fixture.remove(CALLER[who], { key: CARGO.apples }), code);
  });
}

const BAD_BATCHES: Array<{ name: string; body: unknown; code: string }> = [
  { name: 'a missing key after a good one', body: [CARGO.apples, MISSING], code: 'NOT_FOUND' },
  {
    name: 'an unreadable key after a good one',
    body: { keys: [CARGO.apples, CARGO.dates] },
    code: 'NOT_FOUND',
  },
  { name: 'a malformed key after a good one', body: [CARGO.apples, { id: CARGO.eggs }], code: 'NOT_FOUND' },
  {
    name: 'a row outside the delete permission after a good one',
    body: [CARGO.apples, CARGO.coal],
    code: 'FORBIDDEN',
  },
  {
    name: 'a query matching a readable row outside the delete permission',
    body: { query: { filter: { temperature: { _gte: 10 } } } },
    code: 'FORBIDDEN',
  },
];

for (const { name, body, code } of BAD_BATCHES) {
  remove(`a batch is all or nothing: ${name} → ${code}, nothing deleted`, async () => {
    const fixture = await fixtureWithOperators({ read: { permissions: { label: { _neq: 'Dates' } } } });
    await refusedUnchanged(fixture, () => fixture.remove(CALLER.ada, { body }), code);
  });
}

remove('delete by query touches only rows matching the filter AND readable', async () => {
  const fixture = await fixtureWithOperators({ read: { permissions: NOT_DELETED } });
  // Warm cargos: bananas (12), coal (20, archived: not readable), dates (18).
  await fixture.remove(CALLER.ada, { body: { query: { filter: { temperature: { _gte: 10 } } } } });
  assert.equal(fixture.ids(), without(CARGO.bananas, CARGO.dates));
});

remove('a query filtering on a field the caller may not read is FORBIDDEN naming it', async () => {
  const fixture = await fixtureWithOperators({ read: { fields: ['id', 'label'] } });
  await refusedUnchanged(
    fixture,
    () => fixture.remove(CALLER.ada, { body: { query: { filter: { temperature: { _lt: 10 } } } } }),
    'FORBIDDEN',
    'temperature',
  );
});

const OVER_BATCH_MAX: Array<{ name: string; body: (ids: string[]) => unknown }> = [
  { name: 'an array of keys', body: (ids) => ids },
  { name: '{ keys }', body: (ids) => ({ keys: ids }) },
  { name: '{ query }', body: (ids) => ({ query: { filter: { id: { _in: ids } } } }) },
];

async function withSixRows(): Promise<{ fixture: WriteFixture; ids: string[]; extra: string }> {
  const fixture = await fixtureWithOperators({ erase: { permissions: null } });
  const extra = '0190a1b2-0000-7000-8000-000000000006';
  fixture.seed([{ id: extra, label: 'Figs' }]);
  return { fixture, ids: fixture.ids(), extra };
}

for (const { name, body } of OVER_BATCH_MAX) {
  remove(
    `batchMax (${BATCH_MAX}) applies to ${name}: one more is INVALID_PAYLOAD, nothing deleted`,
    async () => {
      const { fixture, ids, extra } = await withSixRows();
      assert.is(ids.length, BATCH_MAX + 1);
      await refusedUnchanged(
        fixture,
        () => fixture.remove(CALLER.ada, { body: body(ids) }),
        'INVALID_PAYLOAD',
      );
      await fixture.remove(CALLER.ada, { body: body(ids.filter((id) => id !== extra)) });
      assert.equal(fixture.ids(), [extra]);
    },
  );
}

const BAD_BODIES: Array<{ name: string; body: unknown; field?: string }> = [
  { name: 'no body', body: undefined },
  { name: 'both keys and query', body: { keys: [CARGO.apples], query: { filter: {} } } },
  { name: 'an unknown property', body: { keys: [CARGO.apples], data: {} }, field: 'data' },
  { name: 'keys that are not an array', body: { keys: CARGO.apples }, field: 'keys' },
  { name: 'a query without a filter', body: { query: {} }, field: 'query' },
  { name: 'an empty object', body: {} },
  { name: 'a string', body: CARGO.apples },
];

for (const { name, body, field } of BAD_BODIES) {
  remove(`a body with ${name} → INVALID_PAYLOAD, nothing deleted`, async () => {
    const fixture = await writeFixture();
    await refusedUnchanged(fixture, () => fixture.remove(CALLER.admin, { body }), 'INVALID_PAYLOAD', field);
  });
}

remove.run();
