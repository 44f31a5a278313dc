import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { autoFields, isAutoField, newPrimaryKey } from '../../../src/domain/items/auto-fields.ts';
import type { CollectionSchema } from '../../../src/domain/schema/collection-schema.ts';
import { CARGO_USERS, cargosSchema, field } from '../../support/cargos-schema.ts';

/** Not on a whole second, not at midnight UTC: local formatting and truncation both show. */
const NOW = new Date('2024-03-15T23:34:56.789Z');
const ada = { user: CARGO_USERS.ada, now: NOW };
const anonymous = { user: null, now: NOW };

// Expectations from the Date's own local getters, so the tests hold in any TZ without setting one.
const pad = (n: number, width = 2) => String(n).padStart(width, '0');
const localDate = (d: Date) => `${pad(d.getFullYear(), 4)}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
const localSeedTimestamp = (d: Date) =>
  `${localDate(d)}T${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;

/** Every auto field, in each type it can have. */
const audited: CollectionSchema = {
  name: 'audited',
  primaryKey: 'id',
  fields: [
    field('id', 'integer', 'integer', { nullable: false, isPrimaryKey: true, hasDefault: true }),
    field('date_created', 'dateTime', 'timestamp with time zone'),
    field('date_updated', 'date', 'date'),
    field('user_created', 'string', 'character varying(64)', { maxLength: 64 }),
    field('user_updated', 'text', 'text'),
  ],
};

test('on create: date_created (local seed format, whole seconds) and user_created, not date_updated', () => {
  assert.equal(autoFields(cargosSchema, 'create', ada), {
    date_created: localSeedTimestamp(NOW),
    user_created: CARGO_USERS.ada,
  });
});

test('on update: date_updated only, since cargos has no user_updated', () => {
  assert.equal(autoFields(cargosSchema, 'update', ada), { date_updated: localSeedTimestamp(NOW) });
});

test('timestamptz gets the UTC instant with milliseconds, date the local date, text columns the id', () => {
  assert.equal(autoFields(audited, 'create', ada), {
    date_created: '2024-03-15T23:34:56.789+00:00',
    user_created: CARGO_USERS.ada,
  });
  assert.equal(autoFields(audited, 'update', ada), {
    date_updated: localDate(NOW),
    user_updated: CARGO_USERS.ada,
  });
});

test('a timestamptz keeping fewer digits than milliseconds gets the instant cut to them, never rounded past now', () => {
  const coarse = (dbType: string): CollectionSchema => ({
    name: 'coarse',
    primaryKey: null,
    fields: [field('date_created', 'dateTime', dbType)],
  });
  const cases: ReadonlyArray<readonly [string, string]> = [
    ['timestamp(0) with time zone', '2024-03-15T23:34:56+00:00'],
    ['timestamp(1) with time zone', '2024-03-15T23:34:56.7+00:00'],
    ['timestamp(2) with time zone', '2024-03-15T23:34:56.78+00:00'],
    ['timestamp(3) with time zone', '2024-03-15T23:34:56.789+00:00'],
  ];
  for (const [dbType, expected] of cases) {
    const { date_created: value } = autoFields(coarse(dbType), 'create', ada);
    assert.is(value, expected, dbType);
    // What a rule `{ "date_created": { "_lte": "$NOW" } }` asks of it.
    assert.ok(Date.parse(String(value)) <= NOW.getTime(), `${dbType}: ${String(value)} is not after now`);
  }
});

test('the public caller writes null into user columns', () => {
  assert.equal(autoFields(audited, 'create', anonymous).user_created, null);
  assert.equal(autoFields(audited, 'update', anonymous).user_updated, null);
});

test('a user column that cannot hold the id gets null', () => {
  const narrow: CollectionSchema = {
    name: 'narrow',
    primaryKey: null,
    fields: [field('user_created', 'string', 'character varying(8)', { maxLength: 8 })],
  };
  assert.equal(autoFields(narrow, 'create', ada), { user_created: null });
  // a uuid column and a user id that is not a uuid
  assert.equal(autoFields(cargosSchema, 'create', { user: 'admin', now: NOW }).user_created, null);
});

test('same-named columns of other types are left alone, and are not auto fields', () => {
  const legacy: CollectionSchema = {
    name: 'legacy',
    primaryKey: null,
    fields: [
      field('date_created', 'integer', 'integer'),
      field('user_created', 'integer', 'integer'),
      field('date_updated', 'time', 'time without time zone'),
      field('user_updated', 'json', 'jsonb'),
    ],
  };
  assert.equal(autoFields(legacy, 'create', ada), {});
  assert.equal(autoFields(legacy, 'update', ada), {});
  assert.ok(legacy.fields.every((f) => !isAutoField(f, legacy)));
  assert.ok(audited.fields.filter((f) => f.name !== 'id').every((f) => isAutoField(f, audited)));
});

test('a collection without auto fields gets none', () => {
  const plain: CollectionSchema = {
    name: 'plain',
    primaryKey: null,
    fields: [field('note', 'text', 'text')],
  };
  assert.equal(autoFields(plain, 'create', ada), {});
  assert.equal(autoFields(plain, 'update', ada), {});
});

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

test('a uuid primary key without default gets a UUID v7', () => {
  const key = newPrimaryKey(cargosSchema);
  assert.equal(Object.keys(key), ['id']);
  assert.match(String(key.id), UUID_V7);
});

test('UUID v7 keys are distinct and sort in creation order, across many draws of random bytes', () => {
  const keys = Array.from({ length: 5000 }, () => String(newPrimaryKey(cargosSchema).id));
  assert.is(new Set(keys).size, keys.length);
  assert.equal([...keys].sort(), keys);
  for (const key of keys) assert.match(key, UUID_V7);
  // The random tails too: no pooled byte is handed out twice.
  assert.is(new Set(keys.map((key) => key.slice(-12))).size, keys.length);
});

test('a v7 key starts with the current Unix time in milliseconds', () => {
  const before = Date.now();
  const millis = Number.parseInt(String(newPrimaryKey(cargosSchema).id).replace(/-/g, '').slice(0, 12), 16);
  assert.ok(millis >= before && millis <= Date.now() + 1, String(millis));
});

test('no key when the database fills it, the key is not a uuid, or there is no key', () => {
  const withDefault: CollectionSchema = {
    ...cargosSchema,
    fields: cargosSchema.fields.map((f) => (f.name === 'id' ? { ...f, hasDefault: true } : f)),
  };
  assert.equal(newPrimaryKey(withDefault), {});
  assert.equal(newPrimaryKey(audited), {});
  assert.equal(newPrimaryKey({ ...cargosSchema, primaryKey: null }), {});
});

test.run();
