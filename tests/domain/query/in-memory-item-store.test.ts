import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { InMemoryItemStore } from '../../../src/adapters/persistence/memory/in-memory-item-store.ts';
import { InMemorySchema } from '../../../src/adapters/persistence/memory/in-memory-schema.ts';
import type { ItemListRequest, SelectedField } from '../../../src/application/ports/item-store.ts';
import type { DomainError } from '../../../src/domain/errors.ts';
import { bindDynamicValues } from '../../../src/domain/query/bind-dynamic-values.ts';
import type { BoundFilterNode } from '../../../src/domain/query/filter.ts';
import { parseFilter } from '../../../src/domain/query/parse-filter.ts';
import { CARGO_IDS, CARGO_USERS, cargoRows, cargosSchema } from '../../support/cargos-schema.ts';
import { listRequest } from '../../support/list-request.ts';

function seeded() {
  const schema = new InMemorySchema();
  schema.registerCollection(cargosSchema);
  const store = new InMemoryItemStore(schema);
  store.insert('cargos', cargoRows);
  return { schema, store };
}

const filter = (raw: unknown) =>
  bindDynamicValues(
    parseFilter(raw, cargosSchema),
    { user: CARGO_USERS.ada, role: null, now: new Date() },
    cargosSchema,
  );
const select = (...names: string[]): SelectedField[] => names.map((field) => ({ field, visibleWhen: null }));
const letterOf = new Map<string, string>(Object.entries(CARGO_IDS).map(([letter, id]) => [id, letter]));

function request(overrides: Partial<ItemListRequest> = {}): ItemListRequest {
  return listRequest(cargosSchema, { select: select('id'), ...overrides });
}

async function letters(overrides: Partial<ItemListRequest>): Promise<string> {
  const { store } = seeded();
  const items = JSON.parse((await store.list(request(overrides))).json) as Array<{ id: string }>;
  return items.map((item) => letterOf.get(item.id)).join('');
}

test('list returns the rows in insertion order, fields in select order, as a JSON array text', async () => {
  const { store } = seeded();
  const result = await store.list(request({ select: select('code', 'id'), limit: 2 }));
  assert.is(
    result.json,
    `[{"code":"FISH_01","id":"${CARGO_IDS.a}"},{"code":"FRUIT-02","id":"${CARGO_IDS.b}"}]`,
  );
  assert.equal(Object.keys(result), ['json'], 'no counts unless asked');
});

test('values are formatted per docs/api.md §4', async () => {
  const { store } = seeded();
  const fields = cargosSchema.fields.map((field) => field.name);
  const items = JSON.parse((await store.list(request({ select: select(...fields) }))).json) as Array<
    Record<string, unknown>
  >;
  const [a, b, c, d] = items as [
    Record<string, unknown>,
    Record<string, unknown>,
    Record<string, unknown>,
    Record<string, unknown>,
  ];
  assert.is(a.serial_number, '9007199254740993', 'int8 beyond 2^53 is a string');
  assert.is(b.serial_number, 42, 'int8 within 2^53 is a number');
  assert.is(d.serial_number, '-9223372036854775808');
  assert.is(a.price, 12345678901.23, 'numeric that round-trips is a number');
  assert.is(d.price, 0.1, 'trailing zeros do not matter');
  assert.is(a.temperature, -18.5);
  assert.is(a.weight_kg, 1250.5);
  assert.is(a.is_deleted, false);
  assert.is(a.date_created, '2024-01-10T08:00:00', 'timestamp in the seed format');
  assert.is(d.date_created, '2024-03-15T00:00:00.5', 'fraction only when stored');
  assert.is(b.departed_at, '2024-02-29T12:30:15+00:00', 'timestamptz with offset');
  assert.is(b.shipped_on, '2024-02-29');
  assert.is(d.pickup_time, '23:59:59.999999');
  assert.equal(a.manifest, { items: ['cod', 'hake'], sealed: true }, 'json as the value itself');
  assert.is(d.manifest, 'fragile');
  assert.is(a.tags, '{cold,fish}', 'unknown types as text');
  for (const [name, value] of Object.entries(c))
    if (!['id', 'date_created', 'description', 'is_deleted'].includes(name)) assert.is(value, null, name);
});

test('numeric beyond a double keeps its exact text, padded to the column scale', async () => {
  const { schema, store } = seeded();
  store.insert('cargos', [{ id: '0190a1b2-0000-7000-8000-0000000000f1', price: '12345678901234567.8' }]);
  const result = await store.list(
    request({ select: select('price'), filter: filter({ price: { _gt: 1e15 } }) }),
  );
  assert.is(result.json, '[{"price":"12345678901234567.80"}]');
  assert.ok(schema.current().collections.has('cargos'));
});

test('visible AND filter decide the rows; counts count visible and filtered rows only when asked', async () => {
  const { store } = seeded();
  const result = await store.list(
    request({
      visible: filter({ is_deleted: { _eq: false } }),
      filter: filter({ temperature: { _gt: 0 } }),
      count: { total: true, filtered: true },
      limit: 1,
    }),
  );
  assert.is(result.totalCount, 3);
  assert.is(result.filterCount, 2);
  assert.is(JSON.parse(result.json).length, 1);
  const onlyTotal = await store.list(request({ count: { total: true, filtered: false } }));
  assert.is(onlyTotal.totalCount, 4);
  assert.not.ok('filterCount' in onlyTotal);
});

test('a field shown under a condition reads null on rows where it fails', async () => {
  const { store } = seeded();
  const result = await store.list(
    request({
      select: [
        { field: 'id', visibleWhen: null },
        { field: 'code', visibleWhen: filter({ user_created: { _eq: '$CURRENT_USER' } }) },
      ],
      limit: 2,
    }),
  );
  assert.equal(JSON.parse(result.json), [
    { id: CARGO_IDS.a, code: 'FISH_01' },
    { id: CARGO_IDS.b, code: null },
  ]);
});

test('sorting puts nulls last ascending and first descending, like PostgreSQL', async () => {
  assert.is(await letters({ sort: [{ field: 'temperature', direction: 'asc' }] }), 'adbc');
  assert.is(await letters({ sort: [{ field: 'temperature', direction: 'desc' }] }), 'cbda');
  assert.is(await letters({ sort: [{ field: 'serial_number', direction: 'desc' }] }), 'cabd');
  assert.is(await letters({ sort: [{ field: 'code', direction: 'asc' }] }), 'abdc');
  assert.is(
    await letters({
      sort: [
        { field: 'is_deleted', direction: 'asc' },
        { field: 'date_created', direction: 'desc' },
      ],
    }),
    'dbac',
  );
  assert.is(
    await letters({ sort: [{ field: 'date_created', direction: 'asc' }] }),
    'abcd',
    'ties keep insertion order',
  );
});

test('limit and offset page through the sorted rows', async () => {
  const sort = [{ field: 'crate_count', direction: 'asc' }] as const;
  assert.is(await letters({ sort, limit: 2, offset: 0 }), 'da');
  assert.is(await letters({ sort, limit: 2, offset: 2 }), 'bc');
  assert.is(await letters({ sort, limit: 2, offset: 4 }), '');
  assert.is(await letters({ sort, limit: 0 }), '');
  assert.is(await letters({ sort, limit: null, offset: 1 }), 'abc');
});

test('get finds a visible row by key and answers null for missing or invisible ones', async () => {
  const { store } = seeded();
  const get = (id: string, visible: BoundFilterNode | null = null) =>
    store.get({ collection: cargosSchema, select: select('id', 'code'), visible, id });
  assert.is(await get(CARGO_IDS.b), `{"id":"${CARGO_IDS.b}","code":"FRUIT-02"}`);
  assert.is(await get(CARGO_IDS.b, filter({ user_created: { _eq: '$CURRENT_USER' } })), null);
  assert.is(await get('0190a1b2-0000-7000-8000-0000000000ff'), null);
  const keyless = { ...cargosSchema, primaryKey: null };
  assert.is(
    await store.get({ collection: keyless, select: select('id'), visible: null, id: CARGO_IDS.a }),
    null,
  );
});

test('insert refuses unknown fields, misfit values, nulls in not-null columns and duplicates, all or nothing', () => {
  const { store, schema } = seeded();
  const cases: ReadonlyArray<readonly [Record<string, unknown>, string, string]> = [
    [{ id: '0190a1b2-0000-7000-8000-0000000000f2', weight: 1 }, 'INVALID_PAYLOAD', 'weight'],
    [{ id: '0190a1b2-0000-7000-8000-0000000000f2', crate_count: 'many' }, 'FAILED_VALIDATION', 'crate_count'],
    [{ id: '0190a1b2-0000-7000-8000-0000000000f2', code: 'x'.repeat(33) }, 'FAILED_VALIDATION', 'code'],
    [{ id: null }, 'FAILED_VALIDATION', 'id'],
    [{ id: '0190a1b2-0000-7000-8000-0000000000f2', code: 'FISH_01' }, 'RECORD_NOT_UNIQUE', 'code'],
    [{ id: CARGO_IDS.a.toUpperCase() }, 'RECORD_NOT_UNIQUE', 'id'],
  ];
  for (const [row, code, field] of cases) {
    assert.throws(
      () => store.insert('cargos', [{ id: '0190a1b2-0000-7000-8000-0000000000f3' }, row]),
      (error: DomainError) => error.code === code && error.extensions.field === field,
      JSON.stringify(row),
    );
  }
  assert.is(schema.table('cargos')!.rows.length, 4, 'nothing was written');
});

test('createCollection gives the column types PostgreSQL introspection prints', async () => {
  const schema = new InMemorySchema();
  const created = await schema.createCollection('things', [
    { field: 'id', type: 'integer', isPrimaryKey: true },
    { field: 'name', type: 'string', isNullable: false, defaultValue: "it's" },
    { field: 'short', type: 'string', maxLength: 10, isUnique: true },
    { field: 'body', type: 'text' },
    { field: 'big', type: 'bigInteger' },
    { field: 'ratio', type: 'float' },
    { field: 'amount', type: 'decimal', defaultValue: -1.5 },
    { field: 'flag', type: 'boolean', defaultValue: true },
    { field: 'at', type: 'timestamp' },
    { field: 'at_tz', type: 'dateTime' },
    { field: 'day', type: 'date' },
    { field: 'clock', type: 'time' },
    { field: 'data', type: 'json', defaultValue: '{"a":1}' },
    { field: 'ref', type: 'uuid' },
  ]);
  assert.equal(
    created.fields.map((field) => field.dbType),
    [
      'integer',
      'character varying(255)',
      'character varying(10)',
      'text',
      'bigint',
      'double precision',
      'numeric',
      'boolean',
      'timestamp without time zone',
      'timestamp with time zone',
      'date',
      'time without time zone',
      'jsonb',
      'uuid',
    ],
  );
  assert.is(created.primaryKey, 'id');
  assert.equal(created.fields[0], {
    name: 'id',
    type: 'integer',
    dbType: 'integer',
    nullable: false,
    defaultValue: null,
    isPrimaryKey: true,
    isUnique: true,
    hasDefault: true,
    maxLength: null,
  });
  assert.equal(
    [
      created.fields[1]!.nullable,
      created.fields[1]!.hasDefault,
      created.fields[1]!.defaultValue,
      created.fields[1]!.maxLength,
    ],
    [false, true, "'it''s'::character varying(255)", 255],
  );
  assert.ok(created.fields[2]!.isUnique);
  assert.is(schema.current().collections.get('things'), created);

  const store = new InMemoryItemStore(schema);
  store.insert('things', [{}, { name: 'two' }]);
  const result = await store.list({
    ...request(),
    collection: created,
    select: select('id', 'name', 'amount', 'flag', 'data'),
  });
  assert.equal(JSON.parse(result.json), [
    { id: 1, name: "it's", amount: -1.5, flag: true, data: { a: 1 } },
    { id: 2, name: 'two', amount: -1.5, flag: true, data: { a: 1 } },
  ]);
});

test('collection and field names are validated; an existing collection is RECORD_NOT_UNIQUE', async () => {
  const schema = new InMemorySchema();
  await schema.createCollection('cargo', [{ field: 'id', type: 'uuid', isPrimaryKey: true }]);
  const rejects = async (work: Promise<unknown>, code: string, field: string) => {
    await work.then(
      () => assert.unreachable(`${code} ${field}`),
      (error: DomainError) => {
        assert.is(error.code, code);
        assert.is(error.extensions.field, field);
      },
    );
  };
  const id = [{ field: 'id', type: 'uuid' as const }];
  await rejects(schema.createCollection('cargo', id), 'RECORD_NOT_UNIQUE', 'collection');
  for (const name of ['1abc', 'a-b', '', 'a'.repeat(64), 'datagate_users', 'DATAGATE_x', 'é']) {
    await rejects(schema.createCollection(name, id), 'FAILED_VALIDATION', 'collection');
  }
  await rejects(
    schema.createCollection('ok', [{ field: 'bad name', type: 'text' }]),
    'FAILED_VALIDATION',
    'field',
  );
  await rejects(
    schema.createCollection('ok', [{ field: 'n', type: 'integer', defaultValue: 'x' }]),
    'FAILED_VALIDATION',
    'n',
  );
  await rejects(schema.addField('cargo', { field: 'id', type: 'text' }), 'RECORD_NOT_UNIQUE', 'field');
  await rejects(
    schema.addField('cargo', { field: 'k', type: 'uuid', isPrimaryKey: true }),
    'FAILED_VALIDATION',
    'k',
  );
  await rejects(schema.dropField('cargo', 'id'), 'FAILED_VALIDATION', 'id');
  await schema.dropField('cargo', 'nope').then(
    () => assert.unreachable(),
    (error: DomainError) => assert.is(error.code, 'NOT_FOUND'),
  );
  for (const work of [
    schema.dropCollection('nope'),
    schema.addField('nope', { field: 'a', type: 'text' }),
    schema.dropCollection('datagate_users'),
  ]) {
    await work.then(
      () => assert.unreachable(),
      (error: DomainError) => assert.is(error.code, 'COLLECTION_NOT_FOUND'),
    );
  }
});

test('adding a field fills existing rows; dropping a field or collection drops its data', async () => {
  const { schema, store } = seeded();
  await schema.addField('cargos', { field: 'priority', type: 'integer', defaultValue: 3, isNullable: false });
  const withPriority = schema.current().collections.get('cargos')!;
  const result = await store.list({
    ...request(),
    collection: withPriority,
    select: select('priority'),
    limit: 1,
  });
  assert.is(result.json, '[{"priority":3}]');
  await schema.addField('cargos', { field: 'note', type: 'text', isNullable: true }).then((collection) => {
    assert.is(collection.fields.at(-1)!.name, 'note');
  });
  await schema.addField('cargos', { field: 'must', type: 'text', isNullable: false }).then(
    () => assert.unreachable(),
    (error: DomainError) => assert.equal([error.code, error.extensions.field], ['FAILED_VALIDATION', 'must']),
  );

  await schema.dropField('cargos', 'code');
  assert.not.ok('code' in schema.table('cargos')!.rows[0]!);
  assert.not.ok(
    schema
      .current()
      .collections.get('cargos')!
      .fields.some((field) => field.name === 'code'),
  );

  await schema.dropCollection('cargos');
  assert.not.ok(schema.current().collections.has('cargos'));
  schema.registerCollection(cargosSchema);
  assert.is(schema.table('cargos')!.rows.length, 0);
});

test('a column named __proto__ is an ordinary column', async () => {
  const schema = new InMemorySchema();
  const collection = await schema.createCollection('odd', [
    { field: 'id', type: 'integer', isPrimaryKey: true },
    { field: '__proto__', type: 'text' },
  ]);
  const store = new InMemoryItemStore(schema);
  store.insert('odd', [JSON.parse('{"__proto__":"x"}')]);
  const bound = bindDynamicValues(
    parseFilter('{"__proto__":{"_eq":"x"}}', collection),
    { user: null, role: null, now: new Date() },
    collection,
  );
  const result = await store.list({
    ...request(),
    collection,
    select: select('id', '__proto__'),
    filter: bound,
  });
  assert.is(result.json, '[{"id":1,"__proto__":"x"}]');
});

test.run();
