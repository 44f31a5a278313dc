import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { type CursorQuery, ItemCursors } from '../../../src/application/items/item-cursors.ts';
import { DomainError } from '../../../src/domain/errors.ts';
import type { ScalarValue } from '../../../src/domain/query/filter.ts';
import { keysetOf } from '../../../src/domain/query/keyset.ts';
import type { CollectionSchema } from '../../../src/domain/schema/collection-schema.ts';
import { cargosSchema, field } from '../../support/cargos-schema.ts';

const SECRET = 'item-cursors-test-secret-0123456789abcdefgh';
const KEY = '0190a1b2-0000-7000-8000-000000000001';

const query = (overrides: Partial<CursorQuery> = {}): CursorQuery => ({
  collection: cargosSchema,
  keyset: keysetOf([{ field: 'temperature', direction: 'desc' }], cargosSchema)!,
  filter: { kind: 'condition', field: 'is_deleted', operator: '_eq', value: false },
  search: null,
  ...overrides,
});

function refused(open: () => unknown, label: string) {
  try {
    open();
  } catch (error) {
    assert.instance(error, DomainError, label);
    assert.is((error as DomainError).code, 'INVALID_QUERY', label);
    assert.is((error as DomainError).extensions.reason, 'INVALID_CURSOR', label);
    return;
  }
  assert.unreachable(`${label}: the cursor opened`);
}

test('a cursor opens to the keyset values it was sealed with, nulls and every sortable type included', () => {
  const cursors = new ItemCursors(SECRET);
  const cases: Array<[string, ScalarValue | null]> = [
    ['temperature', -18.5],
    ['temperature', null],
    ['date_created', '2024-01-02T03:04:05.25'],
    ['description', 'Ünïcødé "quoted" \\ ✓'],
    ['serial_number', '9223372036854775807'],
    ['price', '123456.7'],
    ['departed_at', '2024-01-02T01:04:05+00:00'],
    ['shipped_on', '2024-02-29'],
    ['pickup_time', '00:00:00.125'],
    ['is_deleted', false],
    ['pallets', -3],
  ];
  for (const [name, value] of cases) {
    const shape = query({ keyset: keysetOf([{ field: name, direction: 'asc' }], cargosSchema)! });
    assert.equal(cursors.open(cursors.seal([value, KEY], shape), shape), [value, KEY], name);
  }
});

test('every instance with the same secret opens the others’ cursors; another secret opens none', () => {
  const sealed = new ItemCursors(SECRET).seal([5, KEY], query());
  assert.equal(new ItemCursors(SECRET).open(sealed, query()), [5, KEY]);
  refused(() => new ItemCursors(`${SECRET}x`).open(sealed, query()), 'another secret');
});

test('the cursor text reveals none of its values', () => {
  const secretText = 'a hidden description';
  const shape = query({ keyset: keysetOf([{ field: 'description', direction: 'asc' }], cargosSchema)! });
  const sealed = new ItemCursors(SECRET).seal([secretText, KEY], shape);
  assert.match(sealed, /^[A-Za-z0-9_-]+$/);
  const bytes = Buffer.from(sealed, 'base64url').toString('latin1');
  for (const value of [secretText, KEY]) {
    assert.not.ok(sealed.includes(value));
    assert.not.ok(bytes.includes(value));
  }
});

test('a cursor is as long whatever the primary key it carries holds: its length tells no hidden key', () => {
  const keyedBy = (name: string): CursorQuery => {
    const collection: CollectionSchema = {
      ...cargosSchema,
      primaryKey: name,
      fields: cargosSchema.fields.map((f) =>
        f.name === name ? { ...f, nullable: false, isPrimaryKey: true, isUnique: true } : f,
      ),
    };
    return query({ collection, keyset: keysetOf([{ field: 'temperature', direction: 'asc' }], collection)! });
  };
  const cursors = new ItemCursors(SECRET);
  const lengths = new Set<number>();
  for (const [name, key] of [
    ['crate_count', 1],
    ['crate_count', 42],
    ['crate_count', -2147483648],
    ['serial_number', '9007199254740993'],
    ['serial_number', '-9223372036854775808'],
  ] as const) {
    const sealed = cursors.seal([5, key], keyedBy(name));
    lengths.add(sealed.length);
    assert.equal(cursors.open(sealed, keyedBy(name)), [5, key], String(key));
  }
  assert.is(lengths.size, 1, `lengths ${[...lengths]}`);
});

test('a cursor altered anywhere, cut short, or made up is refused', () => {
  const cursors = new ItemCursors(SECRET);
  const sealed = cursors.seal([5, KEY], query());
  const bytes = Buffer.from(sealed, 'base64url');
  for (let index = 0; index < bytes.length; index += 1) {
    const altered = Buffer.from(bytes);
    altered[index] = altered[index]! ^ 0x01;
    refused(() => cursors.open(altered.toString('base64url'), query()), `byte ${index}`);
  }
  refused(() => cursors.open(bytes.subarray(0, bytes.length - 1).toString('base64url'), query()), 'cut');
  refused(() => cursors.open(`${sealed}AA`, query()), 'lengthened');
  // Whatever the length, one more character, or one base64url does not hold, is another text.
  for (const values of [
    [5, KEY],
    [5.5, KEY],
    [-18.25, KEY],
  ] as const) {
    const other = cursors.seal(values, query());
    for (const extra of ['A', 'x', '-', '=', '.', ' ']) {
      refused(() => cursors.open(`${other}${extra}`, query()), `${other.length} + ${extra}`);
    }
    refused(() => cursors.open(`${other.slice(0, 20)}.${other.slice(20)}`, query()), 'a dot inside');
  }
  for (const made of ['', 'AAAA', 'A'.repeat(64), Buffer.from('[5]').toString('base64url')]) {
    refused(() => cursors.open(made, query()), JSON.stringify(made));
  }
});

test('a cursor opens only for the query it was made for: collection, sort, filter and search', () => {
  const cursors = new ItemCursors(SECRET);
  const sealed = cursors.seal([5, KEY], query());
  const others: Array<[string, CursorQuery]> = [
    ['collection', query({ collection: { ...cargosSchema, name: 'parcels' } })],
    ['direction', query({ keyset: keysetOf([{ field: 'temperature', direction: 'asc' }], cargosSchema)! })],
    ['field', query({ keyset: keysetOf([{ field: 'crate_count', direction: 'desc' }], cargosSchema)! })],
    [
      'filter value',
      query({ filter: { kind: 'condition', field: 'is_deleted', operator: '_eq', value: true } }),
    ],
    ['no filter', query({ filter: null })],
    ['search', query({ search: 'fish' })],
  ];
  for (const [label, other] of others) refused(() => cursors.open(sealed, other), label);
  // The page size and the fields shown are not part of it: the same query opens it.
  assert.equal(cursors.open(sealed, query()), [5, KEY]);
});

test('a cursor whose values no longer fit the schema (a column retyped between pages) is refused', () => {
  const cursors = new ItemCursors(SECRET);
  const shape = query({ keyset: keysetOf([{ field: 'description', direction: 'asc' }], cargosSchema)! });
  const sealed = cursors.seal(['not a number', KEY], shape);
  const retyped: CollectionSchema = {
    ...cargosSchema,
    fields: cargosSchema.fields.map((f) =>
      f.name === 'description' ? field('description', 'integer', 'integer') : f,
    ),
  };
  refused(() => cursors.open(sealed, { ...shape, collection: retyped }), 'retyped');
});

test.run();
