import * as assert from 'uvu/assert';
import type { ItemListRequest } from '../../src/application/ports/item-store.ts';
import { columnValue } from '../../src/domain/items/column-value.ts';
import type { BoundFilterNode, Condition, ScalarValue } from '../../src/domain/query/filter.ts';
import type { SortField } from '../../src/domain/query/item-query.ts';
import type { CollectionSchema } from '../../src/domain/schema/collection-schema.ts';
import type { Collections, SeedRow } from '../support/collections.ts';
import type { CollectionsTarget } from '../support/databases.ts';
import { describedFields, EXISTING_TABLES } from '../support/existing-tables.ts';
import { skippableSuite } from '../support/skippable-suite.ts';

type Context = { collections: Collections };

const TAGGED_ROWS: ReadonlyArray<SeedRow> = [
  {
    id: 1,
    tags: ['fruit', 'red "ripe" \\ ✓'],
    codes: ['ab', null],
    counts: [1, 2, 3],
    bigs: ['9007199254740993', '5'],
    prices: ['1.20', '3'],
    flags: [true, false, null],
    keys: ['0190A000-0000-7000-8000-000000000001'],
    instants: ['2024-01-02T03:04:05+02:00'],
    days: ['2024-02-29'],
    moods: ['happy', 'sad'],
    mood: 'happy',
  },
  { id: 2, tags: [], counts: [], moods: [], mood: 'sad' },
  { id: 3, tags: ['veg'], counts: [2, 5], mood: null },
  { id: 4 },
];

const NONE = {
  tags: null,
  codes: null,
  counts: null,
  bigs: null,
  prices: null,
  flags: null,
  keys: null,
  instants: null,
  days: null,
  moods: null,
  mood: null,
};

/** docs/api.md §4: each element in its scalar's form, `[]` for an empty array, null for none. */
const TAGGED_WIRE = [
  {
    id: 1,
    tags: ['fruit', 'red "ripe" \\ ✓'],
    codes: ['ab', null],
    counts: [1, 2, 3],
    bigs: ['9007199254740993', 5],
    prices: [1.2, 3],
    flags: [true, false, null],
    keys: ['0190a000-0000-7000-8000-000000000001'],
    instants: ['2024-01-02T01:04:05+00:00'],
    days: ['2024-02-29'],
    moods: ['happy', 'sad'],
    mood: 'happy',
  },
  { ...NONE, id: 2, tags: [], counts: [], moods: [], mood: 'sad' },
  { ...NONE, id: 3, tags: ['veg'], counts: [2, 5] },
  { ...NONE, id: 4 },
];

const cond = (field: string, operator: Condition['operator'], value?: unknown): BoundFilterNode => {
  if (value === undefined) return { kind: 'condition', field, operator } as Condition<ScalarValue>;
  if (Array.isArray(value))
    return { kind: 'condition', field, operator, values: value } as Condition<ScalarValue>;
  return { kind: 'condition', field, operator, value } as Condition<ScalarValue>;
};

/**
 * ItemStore and ItemWriter on the column types of existing databases (arrays, enums, views), for every
 * backend: the in-memory twin registers the schemas introspection makes of the same DDL.
 */
export function existingColumnTypesContract(target: CollectionsTarget) {
  const test = skippableSuite<Context>(`Existing column types on ${target.name}`, target.skip);
  test.before.each(async (context) => {
    context.collections = await target.fresh();
    await context.collections.createExistingTables();
  });
  test.after(() => target.dispose());

  const collectionOf = (collections: Collections, name: string) =>
    collections.catalog.current().collections.get(name)!;

  async function seeded(collections: Collections): Promise<CollectionSchema> {
    await collections.insertRows('tagged', TAGGED_ROWS);
    return collectionOf(collections, 'tagged');
  }

  const request = (
    collection: CollectionSchema,
    overrides: Partial<ItemListRequest> = {},
  ): ItemListRequest => ({
    collection,
    select: collection.fields.map((field) => ({ field: field.name, visibleWhen: null })),
    visible: null,
    filter: null,
    sort: [{ field: 'id', direction: 'asc' }],
    limit: null,
    offset: 0,
    count: { total: false, filtered: false },
    ...overrides,
  });

  async function list(
    collections: Collections,
    collection: CollectionSchema,
    overrides: Partial<ItemListRequest> = {},
  ) {
    const result = await collections.store.list(request(collection, overrides));
    return JSON.parse(result.json) as Array<Record<string, unknown>>;
  }

  async function ids(
    collections: Collections,
    collection: CollectionSchema,
    filter: BoundFilterNode,
    sort?: SortField[],
  ) {
    const select = [{ field: 'id', visibleWhen: null }];
    const items = await list(collections, collection, { filter, select, ...(sort ? { sort } : {}) });
    return items.map((item) => item.id);
  }

  test('introspection describes arrays by their element, enums by their labels, views as read-only', async ({
    collections,
  }) => {
    for (const expected of EXISTING_TABLES) {
      const actual = collectionOf(collections, expected.name);
      assert.ok(actual, expected.name);
      assert.equal(describedFields(actual), describedFields(expected), expected.name);
      assert.is(actual.readOnly === true, expected.readOnly === true, `${expected.name} read-only`);
      assert.is(actual.primaryKey, expected.primaryKey);
    }
  });

  test('arrays read as JSON arrays of their elements in their scalar forms; enums as labels', async ({
    collections,
  }) => {
    const tagged = await seeded(collections);
    assert.equal(await list(collections, tagged), TAGGED_WIRE);
    const one = await collections.store.get({
      collection: tagged,
      select: request(tagged).select,
      visible: null,
      id: 1,
    });
    assert.equal(JSON.parse(one!), TAGGED_WIRE[0]);
  });

  test('arrays filter by element: _contains, _intersects, their negations, _empty', async ({
    collections,
  }) => {
    const tagged = await seeded(collections);
    const cases: Array<[BoundFilterNode, number[]]> = [
      [cond('tags', '_contains', 'fruit'), [1]],
      [cond('tags', '_contains', 'red "ripe" \\ ✓'), [1]],
      [cond('tags', '_contains', 'fru'), []],
      [cond('tags', '_ncontains', 'fruit'), [2, 3]],
      [cond('counts', '_intersects', [2, 9]), [1, 3]],
      [cond('counts', '_nintersects', [2]), [2]],
      [cond('tags', '_empty'), [2, 4]],
      [cond('tags', '_nempty'), [1, 3]],
      [cond('tags', '_null'), [4]],
      [cond('bigs', '_contains', '9007199254740993'), [1]],
      [cond('prices', '_contains', '1.2'), [1]],
      [cond('codes', '_contains', 'ab'), [1]],
      [cond('flags', '_contains', false), [1]],
      [cond('keys', '_contains', '0190a000-0000-7000-8000-000000000001'), [1]],
      [cond('instants', '_contains', '2024-01-02T01:04:05+00:00'), [1]],
      [cond('days', '_intersects', ['2024-02-29', '2024-03-01']), [1]],
      [cond('moods', '_contains', 'sad'), [1]],
      [cond('moods', '_nintersects', ['ok']), [1, 2]],
    ];
    for (const [filter, expected] of cases) {
      assert.equal(await ids(collections, tagged, filter), expected, JSON.stringify(filter));
    }
  });

  test('enums filter and sort as their labels', async ({ collections }) => {
    const tagged = await seeded(collections);
    assert.equal(await ids(collections, tagged, cond('mood', '_eq', 'happy')), [1]);
    assert.equal(await ids(collections, tagged, cond('mood', '_neq', 'happy')), [2]);
    assert.equal(await ids(collections, tagged, cond('mood', '_in', ['sad', 'ok'])), [2]);
    assert.equal(await ids(collections, tagged, cond('mood', '_starts_with', 'ha')), [1]);
    assert.equal(await ids(collections, tagged, cond('mood', '_nnull')), [1, 2]);
    assert.equal(
      await ids(collections, tagged, { kind: 'and', nodes: [] }, [{ field: 'mood', direction: 'desc' }]),
      [3, 4, 2, 1],
    );
  });

  test('arrays and enums are written from JSON and read back canonical', async ({ collections }) => {
    const tagged = collectionOf(collections, 'tagged');
    const field = (name: string) => tagged.fields.find((candidate) => candidate.name === name)!;
    const row = {
      id: 7,
      tags: columnValue(field('tags'), ['a', null, 'b']),
      codes: columnValue(field('codes'), ['xyz']),
      bigs: columnValue(field('bigs'), ['-9223372036854775808', 1]),
      prices: columnValue(field('prices'), ['12345678.9']),
      instants: columnValue(field('instants'), ['2024-06-30T23:59:59.5Z']),
      moods: columnValue(field('moods'), ['ok']),
      mood: columnValue(field('mood'), 'ok'),
      counts: columnValue(field('counts'), []),
    };
    await collections.store.write((writer) => writer.insert(tagged, [row]));
    await collections.store.write((writer) =>
      writer.update(tagged, [7], { flags: columnValue(field('flags'), [true]) }),
    );
    const [stored] = await collections.store
      .write((writer) => writer.lockRows(tagged, [7]))
      .then((rows) => [...rows.values()]);
    assert.equal(
      { ...stored },
      {
        id: 7,
        tags: '["a",null,"b"]',
        codes: '["xyz"]',
        counts: '[]',
        bigs: '["-9223372036854775808","1"]',
        prices: '["12345678.9"]',
        flags: '[true]',
        keys: null,
        instants: '["2024-06-30T23:59:59.5+00:00"]',
        days: null,
        moods: '["ok"]',
        mood: 'ok',
      },
    );
    const [item] = await list(collections, tagged, { filter: cond('id', '_eq', 7) });
    assert.equal(item, {
      id: 7,
      tags: ['a', null, 'b'],
      codes: ['xyz'],
      counts: [],
      bigs: ['-9223372036854775808', 1],
      prices: [12345678.9],
      flags: [true],
      keys: null,
      instants: ['2024-06-30T23:59:59.5+00:00'],
      days: null,
      moods: ['ok'],
      mood: 'ok',
    });
  });

  test('a view lists like a table', async ({ collections }) => {
    await collections.insertRows('happy_tagged', [{ id: 1, tags: ['x'], mood: 'happy' }]);
    const view = collectionOf(collections, 'happy_tagged');
    assert.equal(await list(collections, view, { sort: [] }), [{ id: 1, tags: ['x'], mood: 'happy' }]);
    assert.equal(await ids(collections, view, cond('tags', '_contains', 'x')), [1]);
  });

  return test;
}
