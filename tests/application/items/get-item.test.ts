import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ALL_FIELDS, CALLER, PARCEL_ROWS, ROLE, readFixture, refusedWith } from './read-fixture.ts';

const get = suite('GetItemHandler: one item, or the same 404');

get('a visible item comes back with the fields the caller may read', async () => {
  const fixture = await readFixture();
  await fixture.grant({ permissions: { archived: { _eq: false } }, fields: ['id', 'label', 'region'] });
  assert.equal(await fixture.get(CALLER.ada, '1'), { id: 1, label: 'Alpha crates', region: 'north' });
  assert.equal(await fixture.get(CALLER.ada, '2', { fields: 'label' }), { label: 'Beta barrels' });
});

get('admins read any item with every field, without any permission', async () => {
  const fixture = await readFixture();
  const item = await fixture.get(CALLER.admin, '3');
  assert.equal(Object.keys(item), ALL_FIELDS);
  assert.equal(item, { ...PARCEL_ROWS[2] });
});

const NOT_FOUND_IDS: Array<{ name: string; id: string }> = [
  { name: 'outside the permission filter (archived)', id: '3' },
  { name: 'missing', id: '999' },
  { name: 'negative', id: '-1' },
  { name: 'not a number', id: 'abc' },
  { name: 'a fraction', id: '1.5' },
  { name: 'beyond int4', id: '99999999999' },
  { name: 'empty', id: '' },
  { name: 'an injection attempt', id: "1' or '1'='1" },
];

for (const { name, id } of NOT_FOUND_IDS) {
  get(`an id ${name} is NOT_FOUND, the same answer for every reason`, async () => {
    const fixture = await readFixture();
    await fixture.grant({ permissions: { archived: { _eq: false } } });
    await refusedWith(fixture.get(CALLER.ada, id), 'NOT_FOUND');
  });
}

get('a malformed id is NOT_FOUND for admins too', async () => {
  const fixture = await readFixture();
  await refusedWith(fixture.get(CALLER.admin, 'abc'), 'NOT_FOUND');
  await refusedWith(fixture.get(CALLER.admin, '999'), 'NOT_FOUND');
});

get('two permissions combine with OR for a single item too', async () => {
  const fixture = await readFixture();
  await fixture.grant({ permissions: { region: { _eq: 'north' } }, fields: ['id'] });
  await fixture.grant({ permissions: { archived: { _eq: true } }, fields: ['id'] });
  assert.equal(await fixture.get(CALLER.ada, '3'), { id: 3 });
  assert.equal(await fixture.get(CALLER.ada, '4'), { id: 4 });
  await refusedWith(fixture.get(CALLER.ada, '2'), 'NOT_FOUND');
});

get("a field granted by one permission only shows on that permission's item, null elsewhere", async () => {
  const fixture = await readFixture();
  await fixture.grant({ permissions: { region: { _eq: 'north' } }, fields: ['id', 'label'] });
  await fixture.grant({ permissions: { region: { _eq: 'south' } }, fields: ['id', 'weight'] });
  assert.equal(await fixture.get(CALLER.ada, '1'), { id: 1, label: 'Alpha crates', weight: null });
  assert.equal(await fixture.get(CALLER.ada, '2'), { id: 2, label: null, weight: 20 });
});

get(
  'explicitly asking for a field not granted is FORBIDDEN naming it, before the id is looked at',
  async () => {
    const fixture = await readFixture();
    await fixture.grant({ fields: ['id', 'label'] });
    await refusedWith(fixture.get(CALLER.ada, '1', { fields: 'id,notes' }), 'FORBIDDEN', 'notes');
    await refusedWith(fixture.get(CALLER.ada, '999', { fields: 'notes' }), 'FORBIDDEN', 'notes');
    assert.equal(Object.keys(await fixture.get(CALLER.ada, '1', { fields: '*' })), ['id', 'label']);
  },
);

get(
  '$CURRENT_USER in a permission filter: each user gets their own item, and NOT_FOUND for others',
  async () => {
    const fixture = await readFixture();
    await fixture.grant({ permissions: { owner: { _eq: '$CURRENT_USER' } }, fields: ['id'] });
    assert.equal(await fixture.get(CALLER.ada, '1'), { id: 1 });
    assert.equal(await fixture.get(CALLER.bob, '2'), { id: 2 });
    await refusedWith(fixture.get(CALLER.ada, '2'), 'NOT_FOUND');
    await refusedWith(fixture.get(CALLER.bob, '1'), 'NOT_FOUND');
  },
);

get(
  'public permissions: anonymous callers and role-less users read; a role does not inherit them',
  async () => {
    const fixture = await readFixture();
    await fixture.grant({ role: null, fields: ['id'] });
    assert.equal(await fixture.get(CALLER.anonymous, '1'), { id: 1 });
    assert.equal(await fixture.get(CALLER.carol, '1'), { id: 1 });
    await refusedWith(fixture.get(CALLER.ada, '1'), 'FORBIDDEN');
  },
);

const REFUSED: Array<{ who: keyof typeof CALLER; collection: string; code: string }> = [
  { who: 'anonymous', collection: 'parcels', code: 'UNAUTHENTICATED' },
  { who: 'ada', collection: 'parcels', code: 'FORBIDDEN' },
  { who: 'carol', collection: 'parcels', code: 'FORBIDDEN' },
  { who: 'anonymous', collection: 'ghosts', code: 'UNAUTHENTICATED' },
  { who: 'ada', collection: 'ghosts', code: 'FORBIDDEN' },
  { who: 'admin', collection: 'ghosts', code: 'COLLECTION_NOT_FOUND' },
  { who: 'admin', collection: 'datagate_users', code: 'COLLECTION_NOT_FOUND' },
];

for (const { who, collection, code } of REFUSED) {
  get(`reading one item of ${collection} without a permission is ${code} for ${who}`, async () => {
    const fixture = await readFixture();
    await fixture.grant({ role: ROLE.auditor, collection });
    await refusedWith(fixture.get(CALLER[who], '1', {}, collection), code);
  });
}

get('a collection without a primary key has no addressable item', async () => {
  const fixture = await readFixture();
  await fixture.persistence.schemaEditor.createCollection('keyless', [{ field: 'note', type: 'text' }]);
  await refusedWith(fixture.get(CALLER.admin, '1', {}, 'keyless'), 'NOT_FOUND');
});

get.run();
