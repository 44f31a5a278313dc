import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseItemPayload, requireCreatableFields } from '../../../src/domain/items/item-payload.ts';
import type { CollectionSchema } from '../../../src/domain/schema/collection-schema.ts';
import { CARGO_IDS, cargosSchema, field } from '../../support/cargos-schema.ts';
import { expectError } from './domain-error.ts';

const parse = (raw: unknown, mode: 'create' | 'update' = 'create') =>
  parseItemPayload(raw, cargosSchema, mode);

test('a payload is a plain JSON object: arrays, null and scalars are INVALID_PAYLOAD', () => {
  for (const raw of [[], [{}], null, 'text', 42, true, undefined, new Date()]) {
    expectError(() => parse(raw), 'INVALID_PAYLOAD');
  }
  assert.equal(parse({}), {});
  assert.equal(parse(Object.create(null)), {});
});

test('an unknown field is INVALID_PAYLOAD naming it', () => {
  const error = expectError(() => parse({ description: 'x', colour: 'red' }), 'INVALID_PAYLOAD', 'colour');
  assert.match(error.message, 'colour');
});

test('prototype keys are unknown fields, and never reach an object prototype', () => {
  for (const key of ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty']) {
    expectError(() => parse(JSON.parse(`{"${key}": {"polluted": true}}`)), 'INVALID_PAYLOAD', key);
  }
  assert.is(({} as Record<string, unknown>).polluted, undefined);
});

test('a column named __proto__ is an own property of the result', () => {
  const odd: CollectionSchema = {
    name: 'odd',
    primaryKey: null,
    fields: [field('__proto__', 'text', 'text'), field('constructor', 'integer', 'integer')],
  };
  const item = parseItemPayload(JSON.parse('{"__proto__": "p", "constructor": 3}'), odd, 'create');
  assert.ok(Object.hasOwn(item, '__proto__'));
  assert.is(Object.getPrototypeOf(item), Object.prototype);
  assert.equal(Object.entries(item), [
    ['__proto__', 'p'],
    ['constructor', 3],
  ]);
});

test('values are coerced to canonical form, keys in payload order', () => {
  const item = parse({
    temperature: '-18.5',
    id: CARGO_IDS.a.toUpperCase(),
    is_deleted: 'true',
    crate_count: '12',
    serial_number: 9007199254740993n.toString(),
    price: '0010.50',
    departed_at: '2024-03-01T10:00:00+02:00',
    shipped_on: '2024-03-01',
    pickup_time: '08:30',
    date_created: 'ignored',
  });
  assert.equal(item, {
    temperature: -18.5,
    id: CARGO_IDS.a,
    is_deleted: true,
    crate_count: 12,
    serial_number: '9007199254740993',
    price: '10.5',
    departed_at: '2024-03-01T08:00:00+00:00',
    shipped_on: '2024-03-01',
    pickup_time: '08:30:00',
  });
});

test('every value that does not fit its type is FAILED_VALIDATION naming the field', () => {
  const bad: Array<[string, unknown]> = [
    ['id', 'not-a-uuid'],
    ['id', 42],
    ['description', { text: 'x' }],
    ['description', 'nul\u0000byte'],
    ['code', ['a']],
    ['temperature', 'warm'],
    ['temperature', true],
    ['is_deleted', 'yes'],
    ['is_deleted', 2],
    ['crate_count', 1.5],
    ['crate_count', 2147483648],
    ['crate_count', ' 12 '],
    ['pallets', 40000],
    ['serial_number', '9223372036854775808'],
    ['serial_number', 2 ** 60],
    ['weight_kg', 1e39],
    ['price', 'ten'],
    ['loaded_at', '2024-03-01T10:00:00Z'],
    ['loaded_at', '2024-03-01x10:00'],
    ['departed_at', '2024-02-30T10:00:00Z'],
    ['shipped_on', '2024-13-01'],
    ['pickup_time', '25:00'],
    ['manifest', { deep: 'nul\u0000' }],
  ];
  // cargos' timestamp columns are auto fields (dropped unchecked): add an ordinary one.
  const schema: CollectionSchema = {
    ...cargosSchema,
    fields: [...cargosSchema.fields, field('loaded_at', 'timestamp', 'timestamp without time zone')],
  };
  for (const [name, value] of bad) {
    const error = expectError(
      () => parseItemPayload({ [name]: value }, schema, 'create'),
      'FAILED_VALIDATION',
      name,
    );
    assert.match(error.message, name);
  }
});

test('coercion failures are FAILED_VALIDATION, not INVALID_QUERY, in update mode too', () => {
  expectError(() => parse({ crate_count: 'many' }, 'update'), 'FAILED_VALIDATION', 'crate_count');
});

test('null is allowed only in nullable columns', () => {
  assert.equal(parse({ description: null, manifest: null }), { description: null, manifest: null });
  const error = expectError(() => parse({ is_deleted: null }), 'FAILED_VALIDATION', 'is_deleted');
  assert.match(error.message, 'may not be null');
  expectError(() => parse({ id: null }, 'update'), 'FAILED_VALIDATION', 'id');
});

test('maxLength counts characters (code points) as PostgreSQL does', () => {
  const emoji = '🚢'.repeat(32); // 64 UTF-16 units, 32 characters
  assert.equal(parse({ code: emoji }), { code: emoji });
  assert.equal(parse({ code: 'x'.repeat(32) }), { code: 'x'.repeat(32) });
  const error = expectError(() => parse({ code: `${emoji}a` }), 'FAILED_VALIDATION', 'code');
  assert.match(error.message, '32');
  // text columns have no limit
  assert.is(parse({ description: 'x'.repeat(100_000) }).description, 'x'.repeat(100_000));
});

test('numeric(p,s) takes what PostgreSQL stores: rounded to s places, at most p − s whole digits', () => {
  // cargos.price is numeric(12,2): ten whole digits.
  // The value is the stored one, so that a permission's validation judges what the row will hold.
  assert.equal(parse({ price: '9999999999.994' }), { price: '9999999999.99' });
  assert.equal(parse({ price: -9999999999.99 }), { price: '-9999999999.99' });
  assert.equal(parse({ price: '0.001' }), { price: '0' });
  assert.equal(parse({ price: '-0.001' }), { price: '0' });
  assert.equal(parse({ price: '1.005' }), { price: '1.01' });
  assert.equal(parse({ price: '-1.005' }), { price: '-1.01' });
  assert.equal(parse({ price: '12.5' }), { price: '12.5' });
  for (const price of ['10000000000', '9999999999.995', '-9999999999.995', 1e10, '1e12']) {
    const error = expectError(() => parse({ price }), 'FAILED_VALIDATION', 'price');
    assert.match(error.message, 'price');
  }
});

test('timestamp(n), timestamptz(n) and time(n) take what PostgreSQL stores: rounded to n digits, ties away from its epoch', () => {
  const moments: CollectionSchema = {
    name: 'moments',
    primaryKey: null,
    fields: [
      field('at', 'timestamp', 'timestamp(0) without time zone'),
      field('ms', 'timestamp', 'timestamp(3) without time zone'),
      field('instant', 'dateTime', 'timestamp(1) with time zone'),
      field('clock', 'time', 'time(0) without time zone'),
      field('fine', 'time', 'time(2) without time zone'),
    ],
  };
  const taken = (item: Record<string, unknown>) => parseItemPayload(item, moments, 'create');
  // As PostgreSQL 15 stores each (measured with casts, TimeZone UTC).
  const cases: ReadonlyArray<readonly [Record<string, unknown>, Record<string, unknown>]> = [
    [{ at: '2024-01-01T00:00:00.5' }, { at: '2024-01-01T00:00:01' }],
    [{ at: '1999-12-31T23:59:59.5' }, { at: '1999-12-31T23:59:59' }],
    [{ at: '2024-12-31T23:59:59.7' }, { at: '2025-01-01T00:00:00' }],
    [{ at: '0001-01-01T00:00:00.5' }, { at: '0001-01-01T00:00:00' }],
    [{ at: 'infinity' }, { at: 'infinity' }],
    [{ ms: '1969-12-31T23:59:59.9995' }, { ms: '1969-12-31T23:59:59.999' }],
    [{ instant: '2024-01-01T00:00:00.15Z' }, { instant: '2024-01-01T00:00:00.2+00:00' }],
    [{ instant: '1999-12-31T23:59:59.95Z' }, { instant: '1999-12-31T23:59:59.9+00:00' }],
    [{ instant: '2024-01-01T01:00:00.04+01:00' }, { instant: '2024-01-01T00:00:00+00:00' }],
    [{ clock: '00:00:00.5' }, { clock: '00:00:01' }],
    [{ fine: '12:00:00.125' }, { fine: '12:00:00.13' }],
  ];
  for (const [item, stored] of cases) assert.equal(taken(item), stored, JSON.stringify(item));
  // 24:00:00 and a year past 9999 are what PostgreSQL would store, and what the API takes nowhere.
  expectError(() => taken({ clock: '23:59:59.5' }), 'FAILED_VALIDATION', 'clock');
  expectError(() => taken({ at: '9999-12-31T23:59:59.5' }), 'FAILED_VALIDATION', 'at');
});

test('numeric(p,s) holds NaN but no infinity, as PostgreSQL; an unbounded numeric holds both', () => {
  assert.equal(parse({ price: 'NaN' }), { price: 'NaN' });
  for (const price of ['Infinity', '-Infinity']) {
    const error = expectError(() => parse({ price }), 'FAILED_VALIDATION', 'price');
    assert.match(error.message, 'numeric(12,2)');
  }
  const unbounded: CollectionSchema = {
    name: 'measures',
    primaryKey: null,
    fields: [field('amount', 'decimal', 'numeric')],
  };
  for (const amount of ['NaN', 'Infinity', '-Infinity']) {
    assert.equal(parseItemPayload({ amount }, unbounded, 'create'), { amount });
  }
});

test('json fields take any JSON value, stored as canonical JSON text', () => {
  assert.equal(parse({ manifest: { b: [1, 'two', null], a: true } }), {
    manifest: '{"a":true,"b":[1,"two",null]}',
  });
  assert.equal(parse({ manifest: [] }), { manifest: '[]' });
  assert.equal(parse({ manifest: 'text' }), { manifest: '"text"' });
  assert.equal(parse({ manifest: 0 }), { manifest: '0' });
  assert.equal(parse({ manifest: false }), { manifest: 'false' });
});

test('a column of a type we do not model cannot be written, not even null', () => {
  for (const value of [['a'], '{a}', null]) {
    const error = expectError(() => parse({ tags: value }), 'FAILED_VALIDATION', 'tags');
    assert.match(error.message, 'cannot be written');
  }
});

test('auto fields in a payload are dropped silently, whatever their value', () => {
  const echoed = { description: 'x', date_created: 'whenever', date_updated: 42, user_created: 'not a uuid' };
  assert.equal(parse(echoed), { description: 'x' });
  assert.equal(parse(echoed, 'update'), { description: 'x' });
});

test('a same-named column of another type is ordinary data', () => {
  const legacy: CollectionSchema = {
    name: 'legacy',
    primaryKey: null,
    fields: [field('date_created', 'integer', 'integer'), field('user_updated', 'boolean', 'boolean')],
  };
  assert.equal(parseItemPayload({ date_created: 7, user_updated: true }, legacy, 'create'), {
    date_created: 7,
    user_updated: true,
  });
  expectError(
    () => parseItemPayload({ date_created: 'x' }, legacy, 'create'),
    'FAILED_VALIDATION',
    'date_created',
  );
});

test('update mode keeps the primary key for the caller to compare', () => {
  assert.equal(parse({ id: CARGO_IDS.b, description: 'x' }, 'update'), { id: CARGO_IDS.b, description: 'x' });
});

const required: CollectionSchema = {
  name: 'required',
  primaryKey: 'id',
  fields: [
    field('id', 'integer', 'integer', { nullable: false, isPrimaryKey: true, hasDefault: true }),
    field('name', 'text', 'text', { nullable: false }),
    field('status', 'string', 'character varying(20)', { nullable: false, hasDefault: true, maxLength: 20 }),
    field('note', 'text', 'text'),
  ],
};

test('every not-null column without a default is required on create', () => {
  requireCreatableFields({ name: 'n' }, required);
  requireCreatableFields({ id: 1, name: 'n', status: 's', note: null }, required);
  const error = expectError(
    () => requireCreatableFields({ note: 'x' }, required),
    'FAILED_VALIDATION',
    'name',
  );
  assert.match(error.message, 'is required');
});

test('a uuid key without default is required: newPrimaryKey must have been merged in first', () => {
  expectError(() => requireCreatableFields({ is_deleted: false }, cargosSchema), 'FAILED_VALIDATION', 'id');
  requireCreatableFields({ id: CARGO_IDS.a }, cargosSchema);
});

test('null in a not-null column is refused even when it did not come through the payload', () => {
  for (const name of ['name', 'status', 'id']) {
    const item = { name: 'n', [name]: null };
    const error = expectError(() => requireCreatableFields(item, required), 'FAILED_VALIDATION', name);
    assert.match(error.message, 'may not be null');
  }
});

test('an array keeps its elements as the column does: char(n) padded, numeric(p,s) and timestamp(n) rounded', () => {
  const tagged: CollectionSchema = {
    name: 'tagged',
    primaryKey: null,
    fields: [
      {
        ...field('codes', 'array', 'character(3)[]'),
        element: { type: 'string', dbType: 'character(3)', maxLength: 3 },
      },
      {
        ...field('prices', 'array', 'numeric(5,2)[]'),
        element: { type: 'decimal', dbType: 'numeric(5,2)', maxLength: null },
      },
      {
        ...field('moments', 'array', 'timestamp(0) without time zone[]'),
        element: { type: 'timestamp', dbType: 'timestamp(0) without time zone', maxLength: null },
      },
    ],
  };
  const taken = parseItemPayload(
    { codes: ['ab', null, 'xyz  '], prices: ['1.005', '2'], moments: ['2024-01-01T00:00:00.5'] },
    tagged,
    'create',
  );
  const scalars = parseItemPayload(
    { code: 'ab', price: '1.005', moment: '2024-01-01T00:00:00.5' },
    {
      name: 'scalars',
      primaryKey: null,
      fields: [
        field('code', 'string', 'character(3)', { maxLength: 3 }),
        field('price', 'decimal', 'numeric(5,2)'),
        field('moment', 'timestamp', 'timestamp(0) without time zone'),
      ],
    },
    'create',
  );
  assert.equal(JSON.parse(String(taken.codes)), [scalars.code, null, 'xyz']);
  assert.equal(JSON.parse(String(taken.prices)), [scalars.price, '2']);
  assert.equal(JSON.parse(String(taken.moments)), [scalars.moment]);
  expectError(
    () => parseItemPayload({ prices: ['123456.7'] }, tagged, 'create'),
    'FAILED_VALIDATION',
    'prices',
  );
});

test.run();
