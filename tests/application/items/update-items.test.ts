import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import {
  asItem,
  asItems,
  BATCH_MAX,
  CALLER,
  CARGO,
  CARGO_ROWS,
  type Grant,
  type Item,
  MISSING,
  NOT_DELETED,
  NOW,
  refusedUnchanged,
  seeded,
  seedTime,
  USER,
  type WriteFixture,
  writeFixture,
} from './write-fixture.ts';

const update = suite('UpdateItemsHandler: changing items the caller may read and change');

const LATER = new Date(new Date(NOW).getTime() + 3 * 60 * 60_000 + 7_500);

/**
 * The operators' rights unless a test says otherwise: read every cargo and field, update the ones not
 * archived (so coal is readable but not changeable), on description and temperature.
 */
async function operators(
  fixture: WriteFixture,
  { read = {}, change = {} }: { read?: Grant; change?: Grant } = {},
): Promise<void> {
  await fixture.grant('read', read);
  await fixture.grant('update', {
    permissions: NOT_DELETED,
    fields: ['description', 'temperature'],
    ...change,
  });
}

async function fixtureWithOperators(rights?: { read?: Grant; change?: Grant }): Promise<WriteFixture> {
  const fixture = await writeFixture();
  await operators(fixture, rights);
  fixture.clock.set(LATER);
  return fixture;
}

/** What an update by Ada sets besides the payload. */
const BY_ADA = { date_updated: seedTime(LATER), user_updated: USER.ada };

update('date_updated and user_updated are set from the fixed clock and the caller', async () => {
  const fixture = await fixtureWithOperators();
  await fixture.update(CALLER.ada, { temperature: 5 }, { key: CARGO.apples });
  const row = fixture.row(CARGO.apples)!;
  assert.is(row.date_updated, seedTime(LATER));
  assert.is(row.user_updated, USER.ada);
  assert.is(row.date_created, seeded(CARGO.apples).date_created, 'date_created is left alone');
  assert.is(row.user_created, USER.bob, 'user_created is left alone');
});

update('auto fields a caller sends are ignored: the server`s values win', async () => {
  const fixture = await fixtureWithOperators();
  await fixture.update(
    CALLER.ada,
    {
      temperature: 5,
      date_updated: '2000-01-01T00:00:00',
      user_updated: USER.bob,
      date_created: '2000-01-01T00:00:00',
      user_created: USER.ada,
    },
    { key: CARGO.apples },
  );
  assert.equal(fixture.row(CARGO.apples), seeded(CARGO.apples, { temperature: 5, ...BY_ADA }));
});

update('only the given columns change, and only on the addressed row', async () => {
  const fixture = await fixtureWithOperators();
  const before = fixture.rows();
  await fixture.update(CALLER.ada, { description: 'bruised' }, { key: CARGO.apples });
  assert.equal(
    fixture.rows(),
    before.map((row) => (row.id === CARGO.apples ? { ...row, description: 'bruised', ...BY_ADA } : row)),
  );
});

update('a single update answers the item as the caller may read it, shaped by `fields`', async () => {
  const fixture = await fixtureWithOperators({
    read: { fields: ['id', 'label', 'temperature', 'date_updated'] },
  });
  const item = asItem(await fixture.update(CALLER.ada, { temperature: 3 }, { key: CARGO.apples }));
  assert.equal(item, { id: CARGO.apples, label: 'Apples', temperature: 3, date_updated: seedTime(LATER) });
  const shaped = await fixture.update(
    CALLER.ada,
    { temperature: 2 },
    { key: CARGO.apples, query: { fields: 'temperature' } },
  );
  assert.equal(shaped, { temperature: 2 });
});

update(
  'an update moving the row out of the caller`s read filter answers no item (204); the row changes',
  async () => {
    const fixture = await fixtureWithOperators({ read: { permissions: { temperature: { _lt: 10 } } } });
    assert.is(await fixture.update(CALLER.ada, { temperature: 50 }, { key: CARGO.apples }), null);
    assert.equal(fixture.row(CARGO.apples), seeded(CARGO.apples, { temperature: 50, ...BY_ADA }));
    const batch = await fixture.update(CALLER.ada, { keys: [CARGO.eggs], data: { temperature: 60 } });
    assert.is(batch, null);
    assert.is(fixture.row(CARGO.eggs)!.temperature, 60);
  },
);

update('an update permission without any read permission is refused as GET would be: FORBIDDEN', async () => {
  const fixture = await writeFixture();
  await fixture.grant('update', { fields: ['temperature'] });
  await refusedUnchanged(
    fixture,
    () => fixture.update(CALLER.ada, { temperature: 1 }, { key: CARGO.apples }),
    'FORBIDDEN',
  );
});

const NOT_FOUND_KEYS: Array<{ name: string; key: string }> = [
  { name: 'that no row has', key: MISSING },
  { name: 'outside the read filter (archived)', key: CARGO.coal },
  { name: 'that is no uuid', key: 'apples' },
  { name: 'that is empty', key: '' },
  { name: 'that is an injection attempt', key: "' or 1=1 --" },
];

for (const { name, key } of NOT_FOUND_KEYS) {
  update(`a key ${name} is NOT_FOUND, nothing changed`, async () => {
    const fixture = await fixtureWithOperators({ read: { permissions: NOT_DELETED } });
    await refusedUnchanged(
      fixture,
      () => fixture.update(CALLER.ada, { temperature: 1 }, { key }),
      'NOT_FOUND',
    );
  });
}

update('admins get NOT_FOUND for a missing or malformed key too', async () => {
  const fixture = await writeFixture();
  await refusedUnchanged(
    fixture,
    () => fixture.update(CALLER.admin, { temperature: 1 }, { key: MISSING }),
    'NOT_FOUND',
  );
  await refusedUnchanged(
    fixture,
    () => fixture.update(CALLER.admin, { temperature: 1 }, { key: '42' }),
    'NOT_FOUND',
  );
});

update(
  'a row the caller may read but is outside the update filter is FORBIDDEN, nothing changed',
  async () => {
    const fixture = await fixtureWithOperators();
    await refusedUnchanged(
      fixture,
      () => fixture.update(CALLER.ada, { temperature: 1 }, { key: CARGO.coal }),
      'FORBIDDEN',
    );
  },
);

update('for anonymous callers with public permissions, the same refusal is UNAUTHENTICATED', async () => {
  const fixture = await writeFixture();
  await operators(fixture, { read: { role: null }, change: { role: null } });
  await refusedUnchanged(
    fixture,
    () => fixture.update(CALLER.anonymous, { temperature: 1 }, { key: CARGO.coal }),
    'UNAUTHENTICATED',
  );
  await refusedUnchanged(
    fixture,
    () => fixture.update(CALLER.anonymous, { label: 'Pears' }, { key: CARGO.apples }),
    'UNAUTHENTICATED',
  );
  await fixture.update(CALLER.anonymous, { temperature: 1 }, { key: CARGO.apples });
  assert.equal(
    fixture.row(CARGO.apples),
    seeded(CARGO.apples, { temperature: 1, date_updated: seedTime(NOW), user_updated: null }),
  );
});

const WITHOUT_PERMISSION: Array<{ who: keyof typeof CALLER; code: string }> = [
  { who: 'anonymous', code: 'UNAUTHENTICATED' },
  { who: 'carol', code: 'FORBIDDEN' },
  { who: 'vic', code: 'FORBIDDEN' },
];

for (const { who, code } of WITHOUT_PERMISSION) {
  update(`updating without an update permission of one's own is ${code} for ${who}`, async () => {
    const fixture = await writeFixture();
    await operators(fixture);
    for (const role of [null, CALLER.vic.role]) await fixture.grant('read', { role });
    await refusedUnchanged(
      fixture,
      () => fixture.update(CALLER[who], { temperature: 1 }, { key: CARGO.apples }),
      code,
    );
  });
}

update('admins bypass permissions: any field of any row', async () => {
  const fixture = await writeFixture();
  fixture.clock.set(LATER);
  await fixture.update(CALLER.admin, { label: 'Coke', is_deleted: false }, { key: CARGO.coal });
  assert.equal(
    fixture.row(CARGO.coal),
    seeded(CARGO.coal, {
      label: 'Coke',
      is_deleted: false,
      date_updated: seedTime(LATER),
      user_updated: USER.root,
    }),
  );
});

update('a field the update permission does not grant is FORBIDDEN naming it, nothing changed', async () => {
  const fixture = await fixtureWithOperators();
  await refusedUnchanged(
    fixture,
    () => fixture.update(CALLER.ada, { temperature: 1, label: 'Pears' }, { key: CARGO.apples }),
    'FORBIDDEN',
    'label',
  );
});

update('validation is checked on the merged row: an untouched field can fail it', async () => {
  const fixture = await fixtureWithOperators({ change: { validation: { description: { _nnull: true } } } });
  await refusedUnchanged(
    fixture,
    () => fixture.update(CALLER.ada, { temperature: 1 }, { key: CARGO.dates }),
    'FAILED_VALIDATION',
    'description',
  );
  await fixture.update(CALLER.ada, { temperature: 1 }, { key: CARGO.apples });
  await fixture.update(CALLER.ada, { temperature: 1, description: 'dried' }, { key: CARGO.dates });
  assert.equal(
    fixture.row(CARGO.dates),
    seeded(CARGO.dates, { temperature: 1, description: 'dried', ...BY_ADA }),
  );
});

update('a changed value failing validation is FAILED_VALIDATION naming the field', async () => {
  const fixture = await fixtureWithOperators({ change: { validation: { temperature: { _lte: 30 } } } });
  await refusedUnchanged(
    fixture,
    () => fixture.update(CALLER.ada, { temperature: 900 }, { key: CARGO.apples }),
    'FAILED_VALIDATION',
    'temperature',
  );
});

const BAD_VALUES: Array<{ name: string; body: unknown; code: string; field?: string }> = [
  { name: 'null into a not-null column', body: { label: null }, code: 'FAILED_VALIDATION', field: 'label' },
  { name: 'a value too long', body: { label: 'x'.repeat(17) }, code: 'FAILED_VALIDATION', field: 'label' },
  {
    name: 'a value of the wrong type',
    body: { temperature: 'warm' },
    code: 'FAILED_VALIDATION',
    field: 'temperature',
  },
  { name: 'an unknown field', body: { colour: 'red' }, code: 'INVALID_PAYLOAD', field: 'colour' },
  { name: 'a body that is no object', body: [{ temperature: 1 }], code: 'INVALID_PAYLOAD' },
];

for (const { name, body, code, field } of BAD_VALUES) {
  update(`${name} → ${code}, nothing changed`, async () => {
    const fixture = await writeFixture();
    await refusedUnchanged(
      fixture,
      () => fixture.update(CALLER.admin, body, { key: CARGO.apples }),
      code,
      field,
    );
  });
}

update('the primary key may be echoed unchanged, and needs no field grant then', async () => {
  const fixture = await fixtureWithOperators();
  await fixture.update(CALLER.ada, { id: CARGO.apples, temperature: 2 }, { key: CARGO.apples });
  await fixture.update(CALLER.ada, [{ id: CARGO.bananas, temperature: 3 }]);
  assert.is(fixture.row(CARGO.apples)!.temperature, 2);
  assert.is(fixture.row(CARGO.bananas)!.temperature, 3);
});

const KEY_CHANGES: Array<{ name: string; run: (fixture: WriteFixture) => Promise<unknown> }> = [
  {
    name: 'changed in a single update',
    run: (fixture) => fixture.update(CALLER.admin, { id: MISSING, temperature: 1 }, { key: CARGO.apples }),
  },
  {
    name: 'set to null in a single update',
    run: (fixture) => fixture.update(CALLER.admin, { id: null }, { key: CARGO.apples }),
  },
  {
    name: 'in the data of the keys form, even unchanged',
    run: (fixture) => fixture.update(CALLER.admin, { keys: [CARGO.apples], data: { id: CARGO.apples } }),
  },
  {
    name: 'in the data of the query form',
    run: (fixture) =>
      fixture.update(CALLER.admin, {
        query: { filter: { label: { _eq: 'Apples' } } },
        data: { id: MISSING },
      }),
  },
];

for (const { name, run } of KEY_CHANGES) {
  update(`the primary key ${name} → FAILED_VALIDATION naming it, nothing changed`, async () => {
    const fixture = await writeFixture();
    await refusedUnchanged(fixture, () => run(fixture), 'FAILED_VALIDATION', 'id');
  });
}

const BATCH_FORMS: Array<{ name: string; body: unknown; changed: Record<string, Item> }> = [
  {
    name: '{ keys, data } sets the same data on each key',
    body: { keys: [CARGO.eggs, CARGO.apples], data: { temperature: 7 } },
    changed: { [CARGO.eggs]: { temperature: 7 }, [CARGO.apples]: { temperature: 7 } },
  },
  {
    name: 'an array of partial items each sets its own data',
    body: [
      { id: CARGO.eggs, temperature: 1 },
      { id: CARGO.apples, description: 'crisp' },
    ],
    changed: { [CARGO.eggs]: { temperature: 1 }, [CARGO.apples]: { description: 'crisp' } },
  },
  {
    name: '{ query: { filter }, data } sets the data on the matching rows',
    body: { query: { filter: { temperature: { _lt: 10 } } }, data: { description: 'chilled' } },
    changed: { [CARGO.apples]: { description: 'chilled' }, [CARGO.eggs]: { description: 'chilled' } },
  },
];

for (const { name, body, changed } of BATCH_FORMS) {
  update(`batch: ${name}, and answers the changed items`, async () => {
    const fixture = await fixtureWithOperators();
    const before = fixture.rows();
    const answer = asItems(await fixture.update(CALLER.ada, body, { query: { fields: 'id' } }));
    assert.equal(answer.map((item) => item.id).sort(), Object.keys(changed).sort());
    assert.equal(
      fixture.rows(),
      before.map((row) => {
        const change = changed[String(row.id)];
        return change ? { ...row, ...change, ...BY_ADA } : row;
      }),
    );
  });
}

update('batch answers come in the order of the keys given', async () => {
  const fixture = await fixtureWithOperators();
  const answer = await fixture.update(
    CALLER.ada,
    { keys: [CARGO.eggs, CARGO.apples, CARGO.bananas], data: { temperature: 7 } },
    { query: { fields: 'label' } },
  );
  assert.equal(answer, [{ label: 'Eggs' }, { label: 'Apples' }, { label: 'Bananas' }]);
});

const BAD_BATCHES: Array<{ name: string; body: unknown; code: string }> = [
  {
    name: 'a missing key after a good one (keys form)',
    body: { keys: [CARGO.apples, MISSING], data: { temperature: 1 } },
    code: 'NOT_FOUND',
  },
  {
    name: 'an unreadable key after a good one',
    body: { keys: [CARGO.apples, CARGO.dates], data: { temperature: 1 } },
    code: 'NOT_FOUND',
  },
  {
    name: 'a malformed key after a good one',
    body: { keys: [CARGO.apples, 'x'], data: { temperature: 1 } },
    code: 'NOT_FOUND',
  },
  {
    name: 'a number as a uuid key',
    body: { keys: [CARGO.apples, 7], data: { temperature: 1 } },
    code: 'NOT_FOUND',
  },
  {
    name: 'a row outside the update filter after a good one',
    body: { keys: [CARGO.apples, CARGO.coal], data: { temperature: 1 } },
    code: 'FORBIDDEN',
  },
  {
    name: 'a missing key after a good one (items form)',
    body: [
      { id: CARGO.apples, temperature: 1 },
      { id: MISSING, temperature: 1 },
    ],
    code: 'NOT_FOUND',
  },
  {
    name: 'a field not granted in the second item',
    body: [
      { id: CARGO.apples, temperature: 1 },
      { id: CARGO.eggs, label: 'Yolks' },
    ],
    code: 'FORBIDDEN',
  },
  {
    name: 'a failing validation in the second item',
    body: [
      { id: CARGO.apples, temperature: 1 },
      { id: CARGO.eggs, temperature: 99 },
    ],
    code: 'FAILED_VALIDATION',
  },
  {
    name: 'an item without its key',
    body: [{ id: CARGO.apples, temperature: 1 }, { temperature: 1 }],
    code: 'INVALID_PAYLOAD',
  },
];

for (const { name, body, code } of BAD_BATCHES) {
  update(`batch with ${name} → ${code}, nothing changed`, async () => {
    const fixture = await fixtureWithOperators({
      read: { permissions: { label: { _neq: 'Dates' } } },
      change: { validation: { temperature: { _lte: 30 } } },
    });
    await refusedUnchanged(fixture, () => fixture.update(CALLER.ada, body), code);
  });
}

update('update by query touches only the rows matching the filter AND readable', async () => {
  const fixture = await fixtureWithOperators({ read: { permissions: NOT_DELETED } });
  const before = fixture.rows();
  // Warm cargos: bananas (12), coal (20, archived: not readable), dates (18).
  const answer = asItems(
    await fixture.update(
      CALLER.ada,
      { query: { filter: { temperature: { _gte: 10 } } }, data: { description: 'warm' } },
      { query: { fields: 'id,description' } },
    ),
  );
  assert.equal(answer, [
    { id: CARGO.bananas, description: 'warm' },
    { id: CARGO.dates, description: 'warm' },
  ]);
  const touched = new Set<unknown>([CARGO.bananas, CARGO.dates]);
  assert.equal(
    fixture.rows(),
    before.map((row) => (touched.has(row.id) ? { ...row, description: 'warm', ...BY_ADA } : row)),
  );
});

update(
  'update by query matching a readable row outside the update filter is FORBIDDEN, nothing changed',
  async () => {
    const fixture = await fixtureWithOperators();
    await refusedUnchanged(
      fixture,
      () =>
        fixture.update(CALLER.ada, {
          query: { filter: { temperature: { _gte: 10 } } },
          data: { description: 'warm' },
        }),
      'FORBIDDEN',
    );
  },
);

for (const operand of [{ _eq: 10 }, { _eq: 'hot' }, { _contains: 'hot' }]) {
  update(
    `update by query filtering a field the caller may not read (${JSON.stringify(operand)}) → FORBIDDEN naming it, whether or not the operand fits its type`,
    async () => {
      const fixture = await fixtureWithOperators({ read: { fields: ['id', 'label', 'description'] } });
      await refusedUnchanged(
        fixture,
        () =>
          fixture.update(CALLER.ada, {
            query: { filter: { temperature: operand } },
            data: { description: 'x' },
          }),
        'FORBIDDEN',
        'temperature',
      );
    },
  );
}

for (const value of [
  { is_deleted: true },
  { is_deleted: 'maybe' },
  { label: 'x'.repeat(40) },
  { label: 'Kiwis' },
]) {
  update(
    `a field no update permission grants is 403 naming it, whatever its value and key: ${JSON.stringify(value)}`,
    async () => {
      const fixture = await fixtureWithOperators();
      const field = Object.keys(value)[0]!;
      for (const key of [CARGO.apples, MISSING]) {
        await refusedUnchanged(fixture, () => fixture.update(CALLER.ada, value, { key }), 'FORBIDDEN', field);
      }
      await refusedUnchanged(
        fixture,
        () => fixture.update(CALLER.ada, { keys: [CARGO.apples, MISSING], data: value }),
        'FORBIDDEN',
        field,
      );
    },
  );
}

update('update by query binds $CURRENT_USER in the filter to the caller', async () => {
  const fixture = await fixtureWithOperators();
  const mine = { query: { filter: { user_created: { _eq: '$CURRENT_USER' }, is_deleted: { _eq: false } } } };
  assert.equal(await fixture.update(CALLER.ada, { ...mine, data: { temperature: 0 } }), []);
  const answer = asItems(await fixture.update(CALLER.bob, { ...mine, data: { temperature: 0 } }));
  assert.equal(
    answer.map((item) => item.id),
    [CARGO.apples, CARGO.bananas, CARGO.dates, CARGO.eggs],
  );
  assert.is(fixture.row(CARGO.coal)!.temperature, 20);
});

const BAD_FIELDS_QUERIES: Array<{ name: string; fields: string; code: string; field?: string }> = [
  { name: 'a field the caller may not read', fields: 'description', code: 'FORBIDDEN', field: 'description' },
  { name: 'a field the collection lacks', fields: 'colour', code: 'INVALID_QUERY' },
];

for (const { name, fields, code, field } of BAD_FIELDS_QUERIES) {
  update(`\`fields\` naming ${name} → ${code} before anything is changed`, async () => {
    const fixture = await fixtureWithOperators({ read: { fields: ['id', 'label', 'temperature'] } });
    await refusedUnchanged(
      fixture,
      () => fixture.update(CALLER.ada, { temperature: 1 }, { key: CARGO.apples, query: { fields } }),
      code,
      field,
    );
  });
}

update(
  'a query filtering on a field the caller may not read is FORBIDDEN naming it, nothing changed',
  async () => {
    const fixture = await fixtureWithOperators({ read: { fields: ['id', 'label', 'temperature'] } });
    await refusedUnchanged(
      fixture,
      () =>
        fixture.update(CALLER.ada, {
          query: { filter: { description: { _eq: 'fresh' } } },
          data: { temperature: 1 },
        }),
      'FORBIDDEN',
      'description',
    );
  },
);

update('a query matching nothing changes nothing and answers [] (not 204)', async () => {
  const fixture = await fixtureWithOperators();
  const before = fixture.rows();
  const answer = await fixture.update(CALLER.ada, {
    query: { filter: { label: { _eq: 'Nothing' } } },
    data: { temperature: 1 },
  });
  assert.equal(answer, []);
  assert.equal(fixture.rows(), before);
});

const OVER_BATCH_MAX: Array<{ name: string; body: (ids: string[]) => unknown }> = [
  { name: '{ keys, data }', body: (ids) => ({ keys: ids, data: { temperature: 1 } }) },
  { name: 'an array of items', body: (ids) => ids.map((id) => ({ id, temperature: 1 })) },
  {
    name: '{ query, data }',
    body: (ids) => ({ query: { filter: { id: { _in: ids } } }, data: { temperature: 1 } }),
  },
];

for (const { name, body } of OVER_BATCH_MAX) {
  update(
    `batchMax (${BATCH_MAX}) applies to ${name}: one more is INVALID_PAYLOAD, nothing changed`,
    async () => {
      const fixture = await fixtureWithOperators({ change: { permissions: null } });
      const extra = '0190a1b2-0000-7000-8000-000000000006';
      fixture.seed([{ id: extra, label: 'Figs', temperature: 9 }]);
      const ids = fixture.ids();
      assert.is(ids.length, BATCH_MAX + 1);
      await refusedUnchanged(fixture, () => fixture.update(CALLER.ada, body(ids)), 'INVALID_PAYLOAD');
      const allowed = ids.filter((id) => id !== extra);
      assert.is(asItems(await fixture.update(CALLER.ada, body(allowed))).length, BATCH_MAX);
      assert.equal(
        fixture.rows().map((row) => row.temperature),
        [1, 1, 1, 1, 1, 9],
      );
    },
  );
}

const BAD_BODIES: Array<{ name: string; body: unknown; field?: string }> = [
  {
    name: 'both keys and query',
    body: { keys: [CARGO.apples], query: { filter: {} }, data: { temperature: 1 } },
  },
  { name: 'keys without data', body: { keys: [CARGO.apples] } },
  { name: 'query without data', body: { query: { filter: { temperature: { _gte: 0 } } } }, field: 'data' },
  { name: 'data without keys or query', body: { data: { temperature: 1 } } },
  {
    name: 'an unknown property',
    body: { keys: [CARGO.apples], data: { temperature: 1 }, limit: 1 },
    field: 'limit',
  },
  {
    name: 'keys that are not an array',
    body: { keys: CARGO.apples, data: { temperature: 1 } },
    field: 'keys',
  },
  { name: 'a query without a filter', body: { query: {}, data: { temperature: 1 } }, field: 'query' },
  {
    name: 'a query with more than a filter',
    body: { query: { filter: {}, limit: 1 }, data: { temperature: 1 } },
    field: 'query',
  },
  { name: 'data that is not an object', body: { keys: [CARGO.apples], data: 'hot' } },
  { name: 'a string body', body: 'apples' },
  { name: 'a null body', body: null },
];

for (const { name, body, field } of BAD_BODIES) {
  update(`a batch body with ${name} → INVALID_PAYLOAD, nothing changed`, async () => {
    const fixture = await writeFixture();
    await refusedUnchanged(fixture, () => fixture.update(CALLER.admin, body), 'INVALID_PAYLOAD', field);
  });
}

update(
  "an item's fields sent to the collection's path: the message shows the batch forms and the one-item path",
  async () => {
    const fixture = await writeFixture();
    const error = await fixture.update(CALLER.admin, { temperature: 1 }).then(
      () => assert.unreachable('the update was accepted'),
      (caught: unknown) => caught,
    );
    assert.match(
      String((error as Error).message),
      /"temperature".*"keys".*"query".*PATCH \/items\/:collection\/:key/,
    );
    await refusedUnchanged(
      fixture,
      () => fixture.update(CALLER.admin, { temperature: 1 }),
      'INVALID_PAYLOAD',
      'temperature',
    );
  },
);

update('an empty keys list changes nothing and answers []', async () => {
  const fixture = await fixtureWithOperators();
  assert.equal(await fixture.update(CALLER.ada, { keys: [], data: { temperature: 1 } }), []);
  assert.equal(fixture.rows().length, CARGO_ROWS.length);
});

update.run();
