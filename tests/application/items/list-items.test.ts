import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { InMemoryItemStore } from '../../../src/adapters/persistence/memory/in-memory-item-store.ts';
import type { Accountability } from '../../../src/domain/accountability.ts';
import type { RawItemQuery } from '../../../src/domain/query/parse-item-query.ts';
import { ALL_FIELDS, CALLER, idsOf, PARCELS, ROLE, readFixture, refusedWith, USER } from './read-fixture.ts';

const list = suite('ListItemsHandler: what a caller may read');

list('admins bypass permissions: every row and every field, with no permission stored', async () => {
  const fixture = await readFixture();
  const { items } = await fixture.list(CALLER.admin, { sort: 'id' });
  assert.equal(idsOf(items), [1, 2, 3, 4, 5]);
  for (const item of items) assert.equal(Object.keys(item), ALL_FIELDS);
});

list('two read permissions of one role combine with OR: rows of either are visible', async () => {
  const fixture = await readFixture();
  await fixture.grant({ permissions: { region: { _eq: 'north' } } });
  await fixture.grant({ permissions: { archived: { _eq: true } } });
  const { items } = await fixture.list(CALLER.ada, { sort: 'id' });
  assert.equal(idsOf(items), [1, 3, 4]);
});

list('permissions of another role, another collection or another action grant nothing', async () => {
  const fixture = await readFixture();
  await fixture.grant({ role: ROLE.auditor, permissions: { region: { _eq: 'south' } } });
  await fixture.grant({ collection: 'other' });
  await fixture.grant({ permissions: { region: { _eq: 'north' } } });
  const { items } = await fixture.list(CALLER.ada, { sort: 'id' });
  assert.equal(idsOf(items), [1, 4]);
});

list("a field granted by one permission only shows on that permission's rows, null elsewhere", async () => {
  const fixture = await readFixture();
  await fixture.grant({ permissions: { region: { _eq: 'north' } }, fields: ['id', 'label'] });
  await fixture.grant({ permissions: { region: { _eq: 'south' } }, fields: ['id', 'label', 'weight'] });
  const { items } = await fixture.list(CALLER.ada, { sort: 'id' });
  assert.equal(items, [
    { id: 1, label: 'Alpha crates', weight: null },
    { id: 2, label: 'Beta barrels', weight: 20 },
    { id: 3, label: 'Gamma gear', weight: 30 },
    { id: 4, label: 'Delta drums', weight: null },
  ]);
  const asked = await fixture.list(CALLER.ada, { fields: 'id,weight', sort: 'id' });
  assert.equal(
    asked.items.map((item) => item.weight),
    [null, 20, 30, null],
  );
});

const CONDITIONAL_FIELD_QUERIES: Array<{ name: string; query: RawItemQuery }> = [
  { name: 'filter (JSON)', query: { filter: '{"weight":{"_gt":0}}' } },
  { name: 'filter (bracket form)', query: { filter: { weight: { _null: 'true' } } } },
  {
    name: 'filter inside _or',
    query: { filter: { _or: [{ label: { _eq: 'x' } }, { weight: { _lt: 1 } }] } },
  },
  { name: 'sort ascending', query: { sort: 'weight' } },
  { name: 'sort descending', query: { sort: '-weight,id' } },
];

for (const { name, query } of CONDITIONAL_FIELD_QUERIES) {
  list(`a field shown on some rows only cannot be queried: ${name} → FORBIDDEN naming it`, async () => {
    const fixture = await readFixture();
    await fixture.grant({ permissions: { region: { _eq: 'north' } }, fields: ['id', 'label'] });
    await fixture.grant({ permissions: { region: { _eq: 'south' } }, fields: ['id', 'label', 'weight'] });
    await refusedWith(fixture.list(CALLER.ada, query), 'FORBIDDEN', 'weight');
  });
}

list('fields shown on every visible row can be filtered and sorted on', async () => {
  const fixture = await readFixture();
  await fixture.grant({ permissions: { region: { _eq: 'north' } }, fields: ['id', 'label'] });
  await fixture.grant({ permissions: { region: { _eq: 'south' } }, fields: ['id', 'label', 'weight'] });
  const { items } = await fixture.list(CALLER.ada, { filter: { id: { _gte: '2' } }, sort: '-label' });
  assert.equal(idsOf(items), [3, 4, 2]);
});

list('`*` narrows to the permitted fields, in the order of the collection', async () => {
  const fixture = await readFixture();
  await fixture.grant({ fields: ['weight', 'label', 'id', 'no_such_field'] });
  for (const query of [{}, { fields: '*' }]) {
    const { items } = await fixture.list(CALLER.ada, query);
    assert.is(items.length, 5);
    for (const item of items) assert.equal(Object.keys(item), ['id', 'label', 'weight']);
  }
});

const FORBIDDEN_FIELD_REQUESTS: Array<{ fields: string; named: string }> = [
  { fields: 'notes', named: 'notes' },
  { fields: 'id,label,notes', named: 'notes' },
  { fields: '*,owner', named: 'owner' },
];

for (const { fields, named } of FORBIDDEN_FIELD_REQUESTS) {
  list(`explicitly asking for a field not granted (fields=${fields}) → FORBIDDEN naming it`, async () => {
    const fixture = await readFixture();
    await fixture.grant({ fields: ['id', 'label'] });
    await refusedWith(fixture.list(CALLER.ada, { fields }), 'FORBIDDEN', named);
  });
}

const HIDDEN_FIELD_QUERIES: Array<{ name: string; query: RawItemQuery }> = [
  { name: 'filter', query: { filter: { notes: { _contains: 'needle' } } } },
  { name: 'sort', query: { sort: 'notes' } },
];

for (const { name, query } of HIDDEN_FIELD_QUERIES) {
  list(`a field not granted at all cannot be used in a ${name} → FORBIDDEN naming it`, async () => {
    const fixture = await readFixture();
    await fixture.grant({ fields: ['id', 'label'] });
    await refusedWith(fixture.list(CALLER.ada, query), 'FORBIDDEN', 'notes');
  });
}

list('anonymous callers without a public permission are UNAUTHENTICATED', async () => {
  const fixture = await readFixture();
  await fixture.grant(); // the clerks' permission is no one else's
  await refusedWith(fixture.list(CALLER.anonymous), 'UNAUTHENTICATED');
});

list('a public permission lets anonymous callers read, within its filter and fields', async () => {
  const fixture = await readFixture();
  await fixture.grant({ role: null, permissions: { archived: { _eq: false } }, fields: ['id', 'label'] });
  const { items } = await fixture.list(CALLER.anonymous, { sort: 'id' });
  assert.equal(idsOf(items), [1, 2, 4, 5]);
  assert.equal(Object.keys(items[0]!), ['id', 'label']);
});

list('a user with a role gets only that role’s permissions, never the public ones added', async () => {
  const fixture = await readFixture();
  await fixture.grant({ role: null }); // public: everything
  await fixture.grant({ permissions: { region: { _eq: 'north' } }, fields: ['id'] });
  const { items } = await fixture.list(CALLER.ada, { sort: 'id' });
  assert.equal(items, [{ id: 1 }, { id: 4 }]);
  // A role with no permission of its own is refused, although the public may read.
  await refusedWith(fixture.list(CALLER.dan), 'FORBIDDEN');
});

list('a user without a role reads with the public permissions', async () => {
  const fixture = await readFixture();
  await fixture.grant({ role: null, permissions: { region: { _eq: 'south' } }, fields: ['id', 'region'] });
  await fixture.grant({ permissions: { region: { _eq: 'north' } } }); // the clerks' only
  const { items } = await fixture.list(CALLER.carol, { sort: 'id' });
  assert.equal(items, [
    { id: 2, region: 'south' },
    { id: 3, region: 'south' },
  ]);
});

list('a user without a role and no public permission is FORBIDDEN, not asked to log in', async () => {
  const fixture = await readFixture();
  await refusedWith(fixture.list(CALLER.carol), 'FORBIDDEN');
});

const OWN_ROWS: Array<{ who: keyof typeof CALLER; ids: number[] }> = [
  { who: 'ada', ids: [1, 3] },
  { who: 'bob', ids: [2, 5] },
];

for (const { who, ids } of OWN_ROWS) {
  list(`$CURRENT_USER in a permission filter shows ${who} their own rows only`, async () => {
    const fixture = await readFixture();
    await fixture.grant({ permissions: { owner: { _eq: '$CURRENT_USER' } } });
    const { items } = await fixture.list(CALLER[who], { sort: 'id' });
    assert.equal(idsOf(items), ids);
  });
}

list('the same $CURRENT_USER query, parsed once, is bound to each caller in turn', async () => {
  const fixture = await readFixture();
  await fixture.grant();
  const query = { filter: JSON.stringify({ owner: { _eq: '$CURRENT_USER' } }), sort: 'id' };
  for (const { who, ids } of [...OWN_ROWS, ...OWN_ROWS]) {
    assert.equal(idsOf((await fixture.list(CALLER[who], query)).items), ids);
    assert.equal(idsOf([await fixture.get(CALLER[who], String(ids[0]), { fields: 'id' })]), [ids[0]]);
  }
});

list(
  'a public $CURRENT_USER permission matches no anonymous row, so it grants nothing: UNAUTHENTICATED',
  async () => {
    const fixture = await readFixture();
    await fixture.grant({ role: null, permissions: { owner: { _eq: '$CURRENT_USER' } } });
    await refusedWith(fixture.list(CALLER.anonymous), 'UNAUTHENTICATED');
    // The same permission for role-less users does bind.
    const { items } = await fixture.list(CALLER.carol);
    assert.equal(items, []);
  },
);

list('$CURRENT_ROLE in a permission filter binds to the caller’s role', async () => {
  const fixture = await readFixture();
  await fixture.persistence.schemaEditor.addField(PARCELS, { field: 'team', type: 'uuid' });
  (fixture.persistence.items as InMemoryItemStore).insert(PARCELS, [
    { id: 6, label: 'For clerks', team: ROLE.clerk },
    { id: 7, label: 'For auditors', team: ROLE.auditor },
  ]);
  for (const role of [ROLE.clerk, ROLE.auditor]) {
    await fixture.grant({ role, permissions: { team: { _eq: '$CURRENT_ROLE' } } });
  }
  assert.equal(idsOf((await fixture.list(CALLER.ada)).items), [6]);
  assert.equal(idsOf((await fixture.list(CALLER.dan)).items), [7]);
});

list('$NOW(-1 day) in a permission filter is measured against the clock', async () => {
  const fixture = await readFixture();
  await fixture.grant({ permissions: { created_at: { _gte: '$NOW(-1 day)' } } });
  const today = await fixture.list(CALLER.ada, { sort: 'id' });
  assert.equal(idsOf(today.items), [1, 4, 5]);
  fixture.clock.advance(13 * 3_600_000); // the 12-hour-old parcel is now 25 hours old
  const later = await fixture.list(CALLER.ada, { sort: 'id' });
  assert.equal(idsOf(later.items), [1, 5]);
  fixture.clock.advance(7 * 24 * 3_600_000);
  assert.equal((await fixture.list(CALLER.ada)).items, []);
});

const UNKNOWN_COLLECTION: Array<{ who: keyof typeof CALLER; code: string }> = [
  { who: 'ada', code: 'FORBIDDEN' },
  { who: 'carol', code: 'FORBIDDEN' },
  { who: 'anonymous', code: 'UNAUTHENTICATED' },
  { who: 'admin', code: 'COLLECTION_NOT_FOUND' },
];

for (const { who, code } of UNKNOWN_COLLECTION) {
  list(`an unknown collection is ${code} for ${who}`, async () => {
    const fixture = await readFixture();
    await fixture.grant({ role: ROLE.clerk, collection: 'ghosts' });
    await fixture.grant({ role: null, collection: 'ghosts' });
    await refusedWith(fixture.list(CALLER[who], {}, 'ghosts'), code);
  });
}

for (const name of ['datagate_users', 'datagate_permissions', 'DATAGATE_roles']) {
  list(
    `a system table (${name}) does not exist, even for admins or with a permission naming it`,
    async () => {
      const fixture = await readFixture();
      await fixture.grant({ collection: name });
      await refusedWith(fixture.list(CALLER.admin, {}, name), 'COLLECTION_NOT_FOUND');
      await refusedWith(fixture.list(CALLER.ada, {}, name), 'FORBIDDEN');
    },
  );
}

list('an existing collection without a permission is refused exactly like an unknown one', async () => {
  const fixture = await readFixture();
  await refusedWith(fixture.list(CALLER.ada), 'FORBIDDEN');
  await refusedWith(fixture.list(CALLER.anonymous), 'UNAUTHENTICATED');
});

const COUNTS: Array<{ meta?: string; total?: number; filtered?: number }> = [
  {},
  { meta: 'total_count', total: 4 },
  { meta: 'filter_count', filtered: 2 },
  { meta: '*', total: 4, filtered: 2 },
];

for (const { meta, total, filtered } of COUNTS) {
  list(
    `counts are given only when asked (meta=${meta ?? 'none'}): total = visible, filter = visible ∩ filter`,
    async () => {
      const fixture = await readFixture();
      await fixture.grant({ permissions: { archived: { _eq: false } } });
      const query: RawItemQuery = { filter: { region: { _eq: 'north' } }, limit: '1', sort: 'id' };
      const result = await fixture.list(CALLER.ada, meta === undefined ? query : { ...query, meta });
      assert.equal(idsOf(result.items), [1]);
      assert.is(result.totalCount, total);
      assert.is(result.filterCount, filtered);
    },
  );
}

list('counts of an admin cover every row', async () => {
  const fixture = await readFixture();
  const result = await fixture.list(CALLER.admin, { meta: '*', search: 'needle', limit: '0' });
  assert.equal(result.items, []);
  assert.is(result.totalCount, 5);
  assert.is(result.filterCount, 3);
});

list(
  'search looks only into the text fields the caller may read: a hidden column’s text is not found',
  async () => {
    const fixture = await readFixture();
    await fixture.grant({ fields: ['id', 'label'] });
    const { items } = await fixture.list(CALLER.ada, { search: 'NEEDLE', meta: 'filter_count' });
    assert.equal(items, [{ id: 5, label: 'Epsilon needle' }]);
    const admin = await fixture.list(CALLER.admin, { search: 'needle', sort: 'id' });
    assert.equal(idsOf(admin.items), [1, 2, 5]);
  },
);

list('search skips a text field shown on some visible rows only', async () => {
  const fixture = await readFixture();
  await fixture.grant({ permissions: { region: { _eq: 'north' } }, fields: ['id', 'label', 'notes'] });
  await fixture.grant({ fields: ['id', 'label'] });
  const { items } = await fixture.list(CALLER.ada, { search: 'needle', sort: 'id' });
  assert.equal(items, [{ id: 5, label: 'Epsilon needle', notes: null }]);
});

list('search covers a readable varchar field too', async () => {
  const fixture = await readFixture();
  await fixture.grant({ fields: ['id', 'region'] });
  const { items } = await fixture.list(CALLER.ada, { search: 'OUT', sort: 'id' });
  assert.equal(idsOf(items), [2, 3]);
});

list(
  'a permission whose stored filter names a dropped column grants nothing; the others still apply',
  async () => {
    const fixture = await readFixture();
    await fixture.grant({ permissions: { weight: { _gt: 15 } } });
    await fixture.grant({ permissions: { region: { _eq: 'north' } }, fields: ['id', 'label'] });
    assert.equal(idsOf((await fixture.list(CALLER.ada, { sort: 'id' })).items), [1, 2, 3, 4, 5]);

    await fixture.persistence.schemaEditor.dropField(PARCELS, 'weight');
    const { items } = await fixture.list(CALLER.ada, { sort: 'id' });
    assert.equal(items, [
      { id: 1, label: 'Alpha crates' },
      { id: 4, label: 'Delta drums' },
    ]);
  },
);

list(
  'a permission left with no usable filter after a column was dropped is a refusal, not an error',
  async () => {
    const fixture = await readFixture();
    await fixture.grant({ permissions: { weight: { _gt: 15 } } });
    await fixture.persistence.schemaEditor.dropField(PARCELS, 'weight');
    await refusedWith(fixture.list(CALLER.ada), 'FORBIDDEN');
    await refusedWith(fixture.list(CALLER.admin, { filter: { weight: { _gt: 1 } } }), 'INVALID_QUERY');
  },
);

list(
  'a dropped column named only in a permission’s fields leaves the rest of that permission in force',
  async () => {
    const fixture = await readFixture();
    await fixture.grant({ permissions: { region: { _eq: 'south' } }, fields: ['id', 'weight'] });
    await fixture.persistence.schemaEditor.dropField(PARCELS, 'weight');
    const { items } = await fixture.list(CALLER.ada, { sort: 'id' });
    assert.equal(items, [{ id: 2 }, { id: 3 }]);
  },
);

list('a permission without fields (null or empty) makes no row visible', async () => {
  const fixture = await readFixture();
  await fixture.grant({ fields: null });
  await fixture.grant({ role: ROLE.auditor, fields: [] });
  await refusedWith(fixture.list(CALLER.ada), 'FORBIDDEN');
  await refusedWith(fixture.list(CALLER.dan), 'FORBIDDEN');
});

list('the query filter narrows within the permission, never widens it', async () => {
  const fixture = await readFixture();
  await fixture.grant({ permissions: { owner: { _eq: USER.ada } } });
  const callers: Accountability[] = [CALLER.ada, CALLER.bob];
  for (const who of callers) {
    const { items } = await fixture.list(who, { filter: { _or: [{ id: { _eq: 2 } }, { id: { _eq: 3 } }] } });
    assert.equal(idsOf(items), [3]);
  }
});

list('a cursor walk with $NOW in the filter stays valid while the clock moves on', async () => {
  const fixture = await readFixture();
  const query = { sort: '-weight', limit: '2', meta: 'next', filter: { created_at: { _lte: '$NOW' } } };
  const first = await fixture.listItems.execute(CALLER.admin, { collection: PARCELS, query });
  assert.equal(idsOf(JSON.parse(first.json)), [5, 4]);
  fixture.clock.advance(60_000);
  const second = await fixture.listItems.execute(CALLER.admin, {
    collection: PARCELS,
    query: { ...query, after: first.next! },
  });
  assert.equal(idsOf(JSON.parse(second.json)), [3, 2]);
});

list('a collection without a primary key has no cursor pages', async () => {
  const fixture = await readFixture();
  await fixture.persistence.schemaEditor.createCollection('loose', [{ field: 'name', type: 'string' }]);
  for (const query of [{ meta: 'next' }, { after: 'AAAA' }]) {
    await refusedWith(fixture.list(CALLER.admin, query, 'loose'), 'INVALID_QUERY');
  }
  assert.equal((await fixture.list(CALLER.admin, { offset: '0' }, 'loose')).items, []);
});

list.run();
