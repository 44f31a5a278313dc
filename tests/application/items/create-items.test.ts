import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import {
  asItem,
  asItems,
  BATCH_MAX,
  CALLER,
  CARGO,
  CARGO_ROWS,
  type Item,
  NOT_DELETED,
  NOW,
  refusedUnchanged,
  seedTime,
  USER,
  UUID_V7,
  type WriteFixture,
  writeFixture,
} from './write-fixture.ts';

const create = suite('CreateItemsHandler: new items, checked as stored');

/** The operators' create permission of the issue: non-archived cargos, three fields. */
const OPERATOR_CREATE = { permissions: NOT_DELETED, fields: ['label', 'description', 'temperature'] };

const FIG = '0190a1b2-0000-7000-8000-0000000000f1';
const GRAPE = '0190a1b2-0000-7000-8000-0000000000f2';
const HONEY = '0190a1b2-0000-7000-8000-0000000000f3';

/** A role nobody in CALLER has. */
const ROLE_OTHER = 'b0000000-0000-4000-8000-0000000000ff';

const SEEDED_IDS = CARGO_ROWS.map((row) => row.id).sort();

/** The one row the test's create added. */
function onlyAdded(fixture: WriteFixture): Item {
  const added = fixture.added();
  assert.is(added.length, 1, `expected one new row, found ${added.length}`);
  return added[0]!;
}

create(
  'presets fill the fields the payload omits; the payload wins over a preset, even with null',
  async () => {
    const fixture = await writeFixture();
    await fixture.grant('create', { presets: { status: 'draft', description: 'unchecked', temperature: 5 } });
    await fixture.create(CALLER.ada, { id: FIG, label: 'Figs', description: 'sweet', temperature: null });
    const row = fixture.row(FIG)!;
    assert.is(row.status, 'draft');
    assert.is(row.description, 'sweet');
    assert.is(row.temperature, null);
  },
);

/** Values of `status` (a string of at most 16) and `is_deleted` (a boolean) that fit and that do not. */
const UNGRANTED_VALUES: Array<Record<string, unknown>> = [
  { status: 'draft' },
  { status: 'a status longer than sixteen' },
  { status: 7 },
  { is_deleted: false },
  { is_deleted: 'maybe' },
];

for (const value of UNGRANTED_VALUES) {
  create(
    `a field no create permission grants is 403 naming it, whatever its value: ${JSON.stringify(value)}`,
    async () => {
      const fixture = await writeFixture();
      await fixture.grant('create', OPERATOR_CREATE);
      await fixture.grant('create', { permissions: { label: { _eq: 'Kiwis' } }, fields: ['label'] });
      const field = Object.keys(value)[0]!;
      await refusedUnchanged(
        fixture,
        () => fixture.create(CALLER.ada, { label: 'Figs', ...value }),
        'FORBIDDEN',
        field,
      );
      await refusedUnchanged(
        fixture,
        () => fixture.create(CALLER.ada, { label: 'Kiwis', ...value }),
        'FORBIDDEN',
        field,
      );
    },
  );
}

create('a preset may set a field the permission does not let the payload set', async () => {
  const fixture = await writeFixture();
  await fixture.grant('create', { ...OPERATOR_CREATE, presets: { status: 'draft' } });
  await fixture.create(CALLER.ada, { label: 'Figs' });
  assert.is(onlyAdded(fixture).status, 'draft');
});

create(
  'date_created is the fixed clock in seed format (local, whole seconds); user_created the caller',
  async () => {
    const fixture = await writeFixture();
    await fixture.grant('create', OPERATOR_CREATE);
    await fixture.create(CALLER.ada, { label: 'Figs' });
    const row = onlyAdded(fixture);
    assert.is(row.date_created, seedTime(NOW));
    assert.is(row.user_created, USER.ada);
    assert.is(row.date_updated, null, 'date_updated stays unset on create');
    assert.is(row.user_updated, null, 'user_updated stays unset on create');
  },
);

create(
  'auto fields a caller sends are ignored without an error, even outside the granted fields',
  async () => {
    const fixture = await writeFixture();
    await fixture.grant('create', OPERATOR_CREATE);
    await fixture.create(CALLER.ada, {
      label: 'Figs',
      date_created: '2000-01-01T00:00:00',
      user_created: USER.bob,
      date_updated: '2000-01-02T00:00:00',
      user_updated: USER.bob,
    });
    const row = onlyAdded(fixture);
    assert.equal(
      [row.date_created, row.user_created, row.date_updated, row.user_updated],
      [seedTime(NOW), USER.ada, null, null],
    );
  },
);

create('the clock is read per request: a later create gets the later time', async () => {
  const fixture = await writeFixture();
  await fixture.create(CALLER.admin, { id: FIG, label: 'Figs' });
  fixture.clock.advance(90 * 60_000);
  await fixture.create(CALLER.admin, { id: GRAPE, label: 'Grapes' });
  assert.is(fixture.row(FIG)!.date_created, seedTime(NOW));
  assert.is(fixture.row(GRAPE)!.date_created, seedTime(new Date(new Date(NOW).getTime() + 90 * 60_000)));
  assert.is(fixture.row(GRAPE)!.user_created, USER.root);
});

create('an omitted uuid primary key is generated as a UUID v7, distinct per item', async () => {
  const fixture = await writeFixture();
  const created = asItems(await fixture.create(CALLER.admin, [{ label: 'Figs' }, { label: 'Grapes' }]));
  const [fig, grape] = created.map((item) => String(item.id));
  assert.match(fig!, UUID_V7);
  assert.match(grape!, UUID_V7);
  assert.is.not(fig, grape);
  assert.equal(fixture.ids(), [...SEEDED_IDS, fig!, grape!].sort());
  assert.is(fixture.row(fig!)!.label, 'Figs');
});

create('a primary key the caller gives is kept', async () => {
  const fixture = await writeFixture();
  const created = asItem(await fixture.create(CALLER.admin, { id: FIG, label: 'Figs' }));
  assert.is(created.id, FIG);
  assert.is(fixture.row(FIG)!.label, 'Figs');
});

create('choosing the primary key is setting a field: it needs `id` among the permitted fields', async () => {
  const fixture = await writeFixture();
  await fixture.grant('create', OPERATOR_CREATE);
  await refusedUnchanged(
    fixture,
    () => fixture.create(CALLER.ada, { id: FIG, label: 'Figs' }),
    'FORBIDDEN',
    'id',
  );
  await fixture.grant('create', { ...OPERATOR_CREATE, fields: ['id', 'label'] });
  await fixture.create(CALLER.ada, { id: FIG, label: 'Figs' });
  assert.is(fixture.row(FIG)!.label, 'Figs');
});

create(
  'the row filter is checked on the row as stored: a defaulted is_deleted=false satisfies it',
  async () => {
    const fixture = await writeFixture();
    await fixture.grant('create', OPERATOR_CREATE);
    await fixture.create(CALLER.ada, { label: 'Figs' });
    assert.is(onlyAdded(fixture).is_deleted, false);
  },
);

create('the row filter sees the auto fields as stored: user_created = $CURRENT_USER holds', async () => {
  const fixture = await writeFixture();
  await fixture.grant('create', {
    ...OPERATOR_CREATE,
    permissions: { user_created: { _eq: '$CURRENT_USER' } },
  });
  await fixture.create(CALLER.ada, { label: 'Figs' });
  assert.is(onlyAdded(fixture).user_created, USER.ada);
});

create('a payload outside the row filter is FORBIDDEN and nothing is written', async () => {
  const fixture = await writeFixture();
  await fixture.grant('create', { permissions: NOT_DELETED, fields: ['label', 'is_deleted'] });
  await refusedUnchanged(
    fixture,
    () => fixture.create(CALLER.ada, { label: 'Figs', is_deleted: true }),
    'FORBIDDEN',
  );
});

create('a preset that puts the item outside the row filter is FORBIDDEN too', async () => {
  const fixture = await writeFixture();
  await fixture.grant('create', { ...OPERATOR_CREATE, presets: { is_deleted: true } });
  await refusedUnchanged(fixture, () => fixture.create(CALLER.ada, { label: 'Figs' }), 'FORBIDDEN');
});

create(
  'a payload failing the validation rule is FAILED_VALIDATION naming the field, nothing written',
  async () => {
    const fixture = await writeFixture();
    await fixture.grant('create', {
      ...OPERATOR_CREATE,
      validation: { temperature: { _between: [-30, 30] } },
    });
    await refusedUnchanged(
      fixture,
      () => fixture.create(CALLER.ada, { label: 'Lava', temperature: 900 }),
      'FAILED_VALIDATION',
      'temperature',
    );
    await fixture.create(CALLER.ada, { label: 'Ice', temperature: -20 });
    assert.is(onlyAdded(fixture).temperature, -20);
  },
);

const BAD_PAYLOADS: Array<{ name: string; body: unknown; code: string; field?: string }> = [
  {
    name: 'a value too long for its column',
    body: { label: 'x'.repeat(17) },
    code: 'FAILED_VALIDATION',
    field: 'label',
  },
  { name: 'null into a not-null column', body: { label: null }, code: 'FAILED_VALIDATION', field: 'label' },
  {
    name: 'a required field missing',
    body: { description: 'no label' },
    code: 'FAILED_VALIDATION',
    field: 'label',
  },
  {
    name: 'a value of the wrong type',
    body: { label: 'Figs', temperature: 'hot' },
    code: 'FAILED_VALIDATION',
    field: 'temperature',
  },
  {
    name: 'a malformed primary key',
    body: { id: 'not-a-uuid', label: 'Figs' },
    code: 'FAILED_VALIDATION',
    field: 'id',
  },
  {
    name: 'an unknown field',
    body: { label: 'Figs', colour: 'green' },
    code: 'INVALID_PAYLOAD',
    field: 'colour',
  },
  { name: 'an item that is not an object', body: 'Figs', code: 'INVALID_PAYLOAD' },
  { name: 'null as the item', body: null, code: 'INVALID_PAYLOAD' },
];

for (const { name, body, code, field } of BAD_PAYLOADS) {
  create(`${name} → ${code}${field ? ` naming ${field}` : ''}, nothing written`, async () => {
    const fixture = await writeFixture();
    await refusedUnchanged(fixture, () => fixture.create(CALLER.admin, body), code, field);
  });
}

create('a field outside the permission`s fields is FORBIDDEN naming it, nothing written', async () => {
  const fixture = await writeFixture();
  await fixture.grant('create', OPERATOR_CREATE);
  await refusedUnchanged(
    fixture,
    () => fixture.create(CALLER.ada, { label: 'Figs', status: 'rush' }),
    'FORBIDDEN',
    'status',
  );
});

create('admins bypass permissions: any field, any row, with no permission stored', async () => {
  const fixture = await writeFixture();
  const created = asItem(
    await fixture.create(CALLER.admin, { id: FIG, label: 'Figs', status: 'rush', is_deleted: true }),
  );
  assert.equal(created, {
    id: FIG,
    label: 'Figs',
    description: null,
    temperature: null,
    status: 'rush',
    is_deleted: true,
    date_created: seedTime(NOW),
    user_created: USER.root,
    date_updated: null,
    user_updated: null,
  });
  assert.equal(fixture.row(FIG), created);
});

const WITHOUT_PERMISSION: Array<{ who: keyof typeof CALLER; code: string }> = [
  { who: 'anonymous', code: 'UNAUTHENTICATED' },
  { who: 'carol', code: 'FORBIDDEN' },
  { who: 'ada', code: 'FORBIDDEN' },
  { who: 'vic', code: 'FORBIDDEN' },
];

for (const { who, code } of WITHOUT_PERMISSION) {
  create(`creating without a create permission of one's own is ${code} for ${who}`, async () => {
    const fixture = await writeFixture();
    await fixture.grant('create', { role: ROLE_OTHER });
    await fixture.grant('read', { role: null });
    await fixture.grant('read');
    await refusedUnchanged(fixture, () => fixture.create(CALLER[who], { label: 'Figs' }), code);
    // The batch limit is no oracle: over it, the refusal is the same, as for a collection that does not exist.
    const oversized = Array.from({ length: BATCH_MAX + 1 }, () => ({ label: 'Figs' }));
    await refusedUnchanged(fixture, () => fixture.create(CALLER[who], oversized), code);
  });
}

create('anonymous callers with a public create permission can create; user_created stays null', async () => {
  const fixture = await writeFixture();
  await fixture.grant('create', { role: null, ...OPERATOR_CREATE });
  await fixture.create(CALLER.anonymous, { label: 'Figs' });
  const row = onlyAdded(fixture);
  assert.is(row.label, 'Figs');
  assert.is(row.user_created, null);
  assert.is(row.date_created, seedTime(NOW));
});

const PUBLIC_REFUSALS: Array<{ name: string; body: Item; field?: string }> = [
  {
    name: 'a field outside the public fields',
    body: { label: 'Figs', status: 'rush' },
    field: 'status',
  },
  { name: 'an item outside the public row filter', body: { label: 'Figs', is_deleted: true } },
];

for (const { name, body, field } of PUBLIC_REFUSALS) {
  create(`${name}: UNAUTHENTICATED for anonymous, FORBIDDEN for a role-less user`, async () => {
    const fixture = await writeFixture();
    await fixture.grant('create', { role: null, permissions: NOT_DELETED, fields: ['label', 'is_deleted'] });
    await refusedUnchanged(fixture, () => fixture.create(CALLER.anonymous, body), 'UNAUTHENTICATED');
    await refusedUnchanged(fixture, () => fixture.create(CALLER.carol, body), 'FORBIDDEN', field);
  });
}

const BAD_THIRD_ITEMS: Array<{ name: string; third: Item; code: string }> = [
  {
    name: 'a value that does not fit',
    third: { id: HONEY, label: 'x'.repeat(17) },
    code: 'FAILED_VALIDATION',
  },
  {
    name: 'outside the row filter',
    third: { id: HONEY, label: 'Honey', is_deleted: true },
    code: 'FORBIDDEN',
  },
  {
    name: 'failing the validation rule',
    third: { id: HONEY, label: 'Honey', temperature: 99 },
    code: 'FAILED_VALIDATION',
  },
  // The operators may not read cargos here: a clash with a row they cannot read is refused like a field.
  {
    name: 'a key taken by a row the caller cannot read',
    third: { id: CARGO.apples, label: 'Honey' },
    code: 'FORBIDDEN',
  },
  { name: 'the key of the first item', third: { id: FIG, label: 'Honey' }, code: 'RECORD_NOT_UNIQUE' },
  { name: 'an unknown field', third: { id: HONEY, label: 'Honey', colour: 'gold' }, code: 'INVALID_PAYLOAD' },
];

for (const { name, third, code } of BAD_THIRD_ITEMS) {
  create(`a batch is all or nothing: a third item ${name} → ${code}, none stored`, async () => {
    const fixture = await writeFixture();
    await fixture.grant('create', {
      permissions: NOT_DELETED,
      fields: ['id', 'label', 'temperature', 'is_deleted'],
      validation: { temperature: { _lt: 50 } },
    });
    const batch = [
      { id: FIG, label: 'Figs', temperature: 1 },
      { id: GRAPE, label: 'Grapes', temperature: 1 },
      { temperature: 1, ...third },
    ];
    await refusedUnchanged(fixture, () => fixture.create(CALLER.ada, batch), code);
  });
}

create(
  `more than batchMax (${BATCH_MAX}) items → INVALID_PAYLOAD, none stored; exactly batchMax is fine`,
  async () => {
    const fixture = await writeFixture();
    const items = (count: number) =>
      Array.from({ length: count }, (_, index) => ({ label: `Crate ${index}` }));
    await refusedUnchanged(
      fixture,
      () => fixture.create(CALLER.admin, items(BATCH_MAX + 1)),
      'INVALID_PAYLOAD',
    );
    assert.is(asItems(await fixture.create(CALLER.admin, items(BATCH_MAX))).length, BATCH_MAX);
    assert.is(fixture.rows().length, CARGO_ROWS.length + BATCH_MAX);
  },
);

create('one item in → one object out; an array in → an array out, in input order', async () => {
  const fixture = await writeFixture();
  const single = asItem(await fixture.create(CALLER.admin, { id: GRAPE, label: 'Grapes' }, { fields: 'id' }));
  assert.equal(single, { id: GRAPE });
  const batch = await fixture.create(
    CALLER.admin,
    [
      { id: HONEY, label: 'Honey' },
      { id: FIG, label: 'Figs' },
    ],
    { fields: 'label' },
  );
  assert.equal(batch, [{ label: 'Honey' }, { label: 'Figs' }]);
  const one = await fixture.create(CALLER.admin, [{ label: 'Just one' }], { fields: 'label' });
  assert.equal(one, [{ label: 'Just one' }], 'an array of one is still an array');
});

create('an empty array creates nothing and answers an empty list', async () => {
  const fixture = await writeFixture();
  await fixture.grant('create', OPERATOR_CREATE);
  await fixture.grant('read');
  assert.equal(await fixture.create(CALLER.ada, []), []);
  assert.is(fixture.rows().length, CARGO_ROWS.length);
});

create('a caller who may not read cargos gets no item back (204), but the item is stored', async () => {
  const fixture = await writeFixture();
  await fixture.grant('create', OPERATOR_CREATE);
  assert.is(await fixture.create(CALLER.ada, { label: 'Figs' }), null);
  assert.is(await fixture.create(CALLER.ada, [{ label: 'Grapes' }]), null);
  assert.equal(
    fixture.added().map((row) => row.label),
    ['Figs', 'Grapes'],
  );
});

create(
  'an item created outside the caller`s read filter is not read back; the readable ones are',
  async () => {
    const fixture = await writeFixture();
    await fixture.grant('create', { fields: ['id', 'label', 'is_deleted'] });
    await fixture.grant('read', { permissions: NOT_DELETED, fields: ['id', 'label'] });
    assert.is(await fixture.create(CALLER.ada, { id: FIG, label: 'Figs', is_deleted: true }), null);
    const batch = await fixture.create(CALLER.ada, [
      { id: GRAPE, label: 'Grapes', is_deleted: true },
      { id: HONEY, label: 'Honey' },
    ]);
    assert.equal(batch, [{ id: HONEY, label: 'Honey' }]);
    assert.is(fixture.row(FIG)!.is_deleted, true);
    assert.is(fixture.row(GRAPE)!.is_deleted, true);
  },
);

create('the result is shaped by `fields` and by the fields the caller may read', async () => {
  const fixture = await writeFixture();
  await fixture.grant('create', { fields: ['id', 'label', 'description'] });
  await fixture.grant('read', { fields: ['id', 'label', 'date_created', 'user_created'] });
  const full = asItem(await fixture.create(CALLER.ada, { id: FIG, label: 'Figs', description: 'sweet' }));
  assert.equal(full, { id: FIG, label: 'Figs', date_created: seedTime(NOW), user_created: USER.ada });
  const shaped = asItem(
    await fixture.create(CALLER.ada, { id: GRAPE, label: 'Grapes' }, { fields: 'label,user_created' }),
  );
  assert.equal(shaped, { label: 'Grapes', user_created: USER.ada });
});

const BAD_FIELDS_QUERIES: Array<{ name: string; fields: string; code: string; field?: string }> = [
  { name: 'a field the caller may not read', fields: 'description', code: 'FORBIDDEN', field: 'description' },
  { name: 'a field the collection lacks', fields: 'colour', code: 'INVALID_QUERY' },
];

for (const { name, fields, code, field } of BAD_FIELDS_QUERIES) {
  create(`\`fields\` naming ${name} → ${code} before anything is written`, async () => {
    const fixture = await writeFixture();
    await fixture.grant('create', OPERATOR_CREATE);
    await fixture.grant('read', { fields: ['id', 'label'] });
    await refusedUnchanged(
      fixture,
      () => fixture.create(CALLER.ada, { label: 'Honey' }, { fields }),
      code,
      field,
    );
  });
}

create.run();
