import * as assert from 'uvu/assert';
import type { ItemListRequest, SelectedField } from '../../src/application/ports/item-store.ts';
import { DomainError } from '../../src/domain/errors.ts';
import type { BoundFilterNode, Condition, ScalarValue } from '../../src/domain/query/filter.ts';
import type { SortField } from '../../src/domain/query/item-query.ts';
import { afterCondition, keysetOf } from '../../src/domain/query/keyset.ts';
import type { CollectionSchema } from '../../src/domain/schema/collection-schema.ts';
import type { NewField } from '../../src/domain/schema/new-field.ts';
import type { Collections, SeedRow } from '../support/collections.ts';
import type { CollectionsTarget } from '../support/databases.ts';
import { EVERY_COLUMN_TYPE } from '../support/every-column-type.ts';
import { skippableSuite } from '../support/skippable-suite.ts';

/** Awaits a read that must be refused as over the byte budget; its extensions name budget and size. */
async function refusedAsTooLarge(read: Promise<unknown>, maxBytes: number, bytes: number): Promise<void> {
  try {
    await read;
  } catch (error) {
    assert.instance(error, DomainError);
    assert.is((error as DomainError).code, 'RESPONSE_TOO_LARGE');
    assert.equal((error as DomainError).extensions, { maxBytes, bytes });
    return;
  }
  assert.unreachable(`expected RESPONSE_TOO_LARGE at ${maxBytes} bytes, but the read was answered`);
}

type Context = { collections: Collections };

const VALUE_ROWS: ReadonlyArray<SeedRow> = [
  {
    id: 1,
    key: '0190a000-0000-7000-8000-000000000001',
    label: 'Ünïcødé ✓ 𝄞',
    body: 'line\nbreak "quoted" \\ back',
    small: -3,
    big: '9007199254740993',
    ratio: 1.5,
    price: '0.1',
    flag: true,
    at: '2024-01-02T03:04:05',
    instant: '2024-01-02T03:04:05+02:00',
    day: '2024-02-29',
    clock: '13:01:02',
    doc: { b: 1, a: [1, { c: null }], s: 'x' },
  },
  {
    id: 2,
    key: null,
    label: '',
    body: null,
    small: 2147483647,
    big: '-9007199254740991',
    ratio: -0.25,
    price: '1.10',
    flag: false,
    at: '2024-01-02T03:04:05.25',
    instant: '2024-06-30T23:59:59.5+00:00',
    day: '1999-12-31',
    clock: '00:00:00.125',
    doc: [1, 'two', null],
  },
  {
    id: 3,
    key: null,
    label: null,
    body: null,
    small: null,
    big: '9007199254740991',
    ratio: null,
    price: '123456789012345678901234567890',
    flag: null,
    at: null,
    instant: null,
    day: null,
    clock: null,
    doc: 'just a string',
  },
  { id: 4, big: '-9223372036854775808', price: '-0.000001', doc: 42 },
];

/** Values as docs/api.md §4 puts them on the wire. */
const EXPECTED_VALUES = [
  {
    id: 1,
    key: '0190a000-0000-7000-8000-000000000001',
    label: 'Ünïcødé ✓ 𝄞',
    body: 'line\nbreak "quoted" \\ back',
    small: -3,
    big: '9007199254740993',
    ratio: 1.5,
    price: 0.1,
    flag: true,
    at: '2024-01-02T03:04:05',
    instant: '2024-01-02T01:04:05+00:00',
    day: '2024-02-29',
    clock: '13:01:02',
    doc: { b: 1, a: [1, { c: null }], s: 'x' },
  },
  {
    id: 2,
    key: null,
    label: '',
    body: null,
    small: 2147483647,
    big: -9007199254740991,
    ratio: -0.25,
    price: 1.1,
    flag: false,
    at: '2024-01-02T03:04:05.25',
    instant: '2024-06-30T23:59:59.5+00:00',
    day: '1999-12-31',
    clock: '00:00:00.125',
    doc: [1, 'two', null],
  },
  {
    id: 3,
    key: null,
    label: null,
    body: null,
    small: null,
    big: 9007199254740991,
    ratio: null,
    price: '123456789012345678901234567890',
    flag: null,
    at: null,
    instant: null,
    day: null,
    clock: null,
    doc: 'just a string',
  },
  {
    id: 4,
    key: null,
    label: null,
    body: null,
    small: null,
    big: '-9223372036854775808',
    ratio: null,
    price: -0.000001,
    flag: null,
    at: null,
    instant: null,
    day: null,
    clock: null,
    doc: 42,
  },
];

/** Text edge cases for the operators: nulls, empty, LIKE metacharacters, backslashes, unicode, quotes. */
const WORDS_FIELDS: ReadonlyArray<NewField> = [
  { field: 'id', type: 'integer', isPrimaryKey: true },
  { field: 'word', type: 'string' },
  { field: 'n', type: 'integer' },
  { field: 'group', type: 'string' },
];

const WORDS: ReadonlyArray<SeedRow> = [
  { id: 1, word: 'apple', n: 10, group: 'a' },
  { id: 2, word: 'Banana', n: 20, group: 'b' },
  { id: 3, word: '100% pure', n: 30, group: 'a' },
  { id: 4, word: 'snake_case', n: null, group: 'b' },
  { id: 5, word: 'back\\slash', n: 5, group: null },
  { id: 6, word: '', n: 0, group: 'a' },
  { id: 7, word: null, n: 20, group: 'b' },
  { id: 8, word: 'Ünïcødé', n: -1, group: null },
  { id: 9, word: "O'Reilly", n: 20, group: 'a' },
];

const cond = (field: string, operator: Condition['operator'], value?: unknown): BoundFilterNode => {
  if (value === undefined) return { kind: 'condition', field, operator } as Condition<ScalarValue>;
  if (Array.isArray(value))
    return { kind: 'condition', field, operator, values: value } as Condition<ScalarValue>;
  return { kind: 'condition', field, operator, value } as Condition<ScalarValue>;
};
const and = (...nodes: BoundFilterNode[]): BoundFilterNode => ({ kind: 'and', nodes });
const or = (...nodes: BoundFilterNode[]): BoundFilterNode => ({ kind: 'or', nodes });

const all = (collection: CollectionSchema): SelectedField[] =>
  collection.fields.map((f) => ({ field: f.name, visibleWhen: null }));

/** ItemStore as the read handlers rely on it (docs/api.md §4), for every backend. */
export function itemStoreContract(target: CollectionsTarget) {
  const test = skippableSuite<Context>(`ItemStore on ${target.name}`, target.skip);
  test.before.each(async (context) => {
    context.collections = await target.fresh();
  });
  test.after(() => target.dispose());

  async function seed(
    collections: Collections,
    name: string,
    fields: ReadonlyArray<NewField>,
    rows: ReadonlyArray<SeedRow>,
  ) {
    await collections.editor.createCollection(name, fields);
    await collections.insertRows(name, rows);
    return collections.catalog.current().collections.get(name)!;
  }

  const request = (
    collection: CollectionSchema,
    overrides: Partial<ItemListRequest> = {},
  ): ItemListRequest => ({
    collection,
    select: all(collection),
    visible: null,
    filter: null,
    sort: [],
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
    filter: BoundFilterNode | null,
    sort: SortField[] = [],
  ) {
    const items = await list(collections, collection, {
      filter,
      sort,
      select: [{ field: 'id', visibleWhen: null }],
    });
    return items.map((item) => item.id);
  }

  test('every column type is formatted as docs/api.md §4 says', async ({ collections }) => {
    const values = await seed(collections, 'values', EVERY_COLUMN_TYPE, VALUE_ROWS);
    assert.equal(
      await list(collections, values, { sort: [{ field: 'id', direction: 'asc' }] }),
      EXPECTED_VALUES,
    );
  });

  test('keys follow the select order, not the column order', async ({ collections }) => {
    const values = await seed(collections, 'values', EVERY_COLUMN_TYPE, VALUE_ROWS.slice(0, 1));
    const select = ['doc', 'id', 'label'].map((field) => ({ field, visibleWhen: null }));
    const [item] = await list(collections, values, { select });
    assert.equal(Object.keys(item!), ['doc', 'id', 'label']);
    const one = await collections.store.get({ collection: values, select, visible: null, id: 1 });
    assert.equal(Object.keys(JSON.parse(one!)), ['doc', 'id', 'label']);
  });

  test('an empty collection lists as [] and an empty selection as {} per item', async ({ collections }) => {
    const words = await seed(collections, 'words', WORDS_FIELDS, []);
    const result = await collections.store.list(request(words, { count: { total: true, filtered: true } }));
    assert.equal(JSON.parse(result.json), []);
    assert.equal([result.totalCount, result.filterCount], [0, 0]);
    await collections.insertRows('words', WORDS.slice(0, 2));
    assert.equal(await list(collections, words, { select: [] }), [{}, {}]);
  });

  test('each typed column filters by its canonical value', async ({ collections }) => {
    const values = await seed(collections, 'values', EVERY_COLUMN_TYPE, VALUE_ROWS);
    const cases: Array<[string, ScalarValue, number[]]> = [
      ['key', '0190a000-0000-7000-8000-000000000001', [1]],
      ['label', 'Ünïcødé ✓ 𝄞', [1]],
      ['big', '9007199254740993', [1]],
      ['big', '-9223372036854775808', [4]],
      ['ratio', -0.25, [2]],
      ['price', '1.1', [2]],
      ['price', '123456789012345678901234567890', [3]],
      ['flag', false, [2]],
      ['at', '2024-01-02T03:04:05.25', [2]],
      ['instant', '2024-01-02T01:04:05+00:00', [1]],
      ['day', '2024-02-29', [1]],
      ['clock', '00:00:00.125', [2]],
      ['doc', '{"a":[1,{"c":null}],"b":1,"s":"x"}', [1]],
      ['doc', '42', [4]],
      ['doc', '"just a string"', [3]],
    ];
    for (const [field, value, expected] of cases) {
      assert.equal(
        await ids(collections, values, cond(field, '_eq', value)),
        expected,
        `${field} = ${value}`,
      );
    }
    assert.equal(await ids(collections, values, cond('big', '_gt', '9007199254740991')), [1]);
    assert.equal(await ids(collections, values, cond('price', '_lt', '0')), [4]);
    assert.equal(
      await ids(
        collections,
        values,
        cond('at', '_between', ['2024-01-02T03:04:05', '2024-01-02T03:04:05.1']),
      ),
      [1],
    );
    assert.equal(await ids(collections, values, cond('instant', '_gte', '2024-06-30T23:59:59.5+00:00')), [2]);
    assert.equal(await ids(collections, values, cond('flag', '_neq', true)), [2]);
  });

  test('comparison operators follow SQL on nulls: negations never match a null', async ({ collections }) => {
    const words = await seed(collections, 'words', WORDS_FIELDS, WORDS);
    const cases: Array<[BoundFilterNode, number[]]> = [
      [cond('n', '_eq', 20), [2, 7, 9]],
      [cond('n', '_neq', 20), [1, 3, 5, 6, 8]],
      [cond('n', '_lt', 10), [5, 6, 8]],
      [cond('n', '_lte', 10), [1, 5, 6, 8]],
      [cond('n', '_gt', 20), [3]],
      [cond('n', '_gte', 20), [2, 3, 7, 9]],
      [cond('n', '_in', [0, 30, 99]), [3, 6]],
      [cond('n', '_in', []), []],
      [cond('n', '_nin', [20, 30]), [1, 5, 6, 8]],
      [cond('n', '_nin', []), [1, 2, 3, 5, 6, 7, 8, 9]],
      [cond('n', '_null'), [4]],
      [cond('n', '_nnull'), [1, 2, 3, 5, 6, 7, 8, 9]],
      [cond('n', '_between', [5, 20]), [1, 2, 5, 7, 9]],
      [cond('n', '_between', [20, 5]), []],
      [cond('n', '_nbetween', [5, 20]), [3, 6, 8]],
      [cond('n', '_empty'), [4]],
      [cond('n', '_nempty'), [1, 2, 3, 5, 6, 7, 8, 9]],
      [cond('word', '_empty'), [6, 7]],
      [cond('word', '_nempty'), [1, 2, 3, 4, 5, 8, 9]],
      [cond('word', '_eq', "O'Reilly"), [9]],
      [cond('word', '_neq', 'apple'), [2, 3, 4, 5, 6, 8, 9]],
      [cond('word', '_in', ['apple', 'Ünïcødé', 'nothing']), [1, 8]],
      [cond('word', '_nin', ['apple', '']), [2, 3, 4, 5, 8, 9]],
    ];
    for (const [filter, expected] of cases) {
      assert.equal(
        await ids(collections, words, filter, [{ field: 'id', direction: 'asc' }]),
        expected,
        JSON.stringify(filter),
      );
    }
  });

  test('substring operators treat %, _ and \\ literally and never match nulls', async ({ collections }) => {
    const words = await seed(collections, 'words', WORDS_FIELDS, WORDS);
    const cases: Array<[BoundFilterNode, number[]]> = [
      [cond('word', '_contains', '%'), [3]],
      [cond('word', '_contains', '_'), [4]],
      [cond('word', '_contains', '\\'), [5]],
      [cond('word', '_contains', 'an'), [2]],
      [cond('word', '_contains', ''), [1, 2, 3, 4, 5, 6, 8, 9]],
      [cond('word', '_contains', 'nïc'), [8]],
      [cond('word', '_ncontains', 'a'), [3, 6, 8, 9]],
      [cond('word', '_icontains', 'BAN'), [2]],
      [cond('word', '_icontains', 'A'), [1, 2, 4, 5]],
      [cond('word', '_icontains', 'NÏC'), [8]],
      [cond('word', '_icontains', '% P'), [3]],
      [cond('word', '_starts_with', '100%'), [3]],
      [cond('word', '_starts_with', 'snake_'), [4]],
      [cond('word', '_starts_with', 'Ba'), [2]],
      [cond('word', '_nstarts_with', 'a'), [2, 3, 4, 5, 6, 8, 9]],
      [cond('word', '_ends_with', '_case'), [4]],
      [cond('word', '_ends_with', 'h'), [5]],
      [cond('word', '_nends_with', 'e'), [2, 5, 6, 8, 9]],
      [cond('word', '_contains', "'"), [9]],
    ];
    for (const [filter, expected] of cases) {
      assert.equal(
        await ids(collections, words, filter, [{ field: 'id', direction: 'asc' }]),
        expected,
        JSON.stringify(filter),
      );
    }
  });

  test('_icontains lowers each character alone, as ILIKE does: a final Σ is σ, İ is i', async ({
    collections,
  }) => {
    const words = await seed(collections, 'cased', WORDS_FIELDS, [
      { id: 1, word: 'ΟΔΟΣ' },
      { id: 2, word: 'οδος' },
      { id: 3, word: 'ίσως' },
      { id: 4, word: 'Istanbul' },
      { id: 5, word: 'İzmir' },
      { id: 6, word: 'ılık' },
    ]);
    const cases: Array<[BoundFilterNode, number[]]> = [
      [cond('word', '_icontains', 'οσ'), [1]],
      [cond('word', '_icontains', 'ος'), [2]],
      [cond('word', '_icontains', 'ΩΣ'), []],
      [cond('word', '_icontains', 'İ'), [4, 5]],
      [cond('word', '_icontains', 'iz'), [5]],
      [cond('word', '_icontains', 'I'), [4, 5]],
      [cond('word', '_icontains', 'ı'), [6]],
    ];
    for (const [filter, expected] of cases) {
      assert.equal(
        await ids(collections, words, filter, [{ field: 'id', direction: 'asc' }]),
        expected,
        JSON.stringify(filter),
      );
    }
  });

  test('and/or nest, with the identities: empty and = all, empty or = none', async ({ collections }) => {
    const words = await seed(collections, 'words', WORDS_FIELDS, WORDS);
    const byId: SortField[] = [{ field: 'id', direction: 'asc' }];
    assert.equal(await ids(collections, words, and(), byId), [1, 2, 3, 4, 5, 6, 7, 8, 9]);
    assert.equal(await ids(collections, words, or(), byId), []);
    assert.equal(
      await ids(collections, words, and(cond('n', '_eq', 20), cond('group', '_eq', 'b')), byId),
      [2, 7],
    );
    assert.equal(
      await ids(collections, words, or(cond('n', '_null'), cond('group', '_null')), byId),
      [4, 5, 8],
    );
    assert.equal(
      await ids(
        collections,
        words,
        or(
          and(cond('group', '_eq', 'a'), or(cond('n', '_gt', 15), cond('word', '_empty'))),
          and(or(), cond('id', '_eq', 1)),
        ),
        byId,
      ),
      [3, 6, 9],
    );
    assert.equal(await ids(collections, words, and(cond('n', '_eq', 20), or()), byId), []);
    assert.equal(
      await ids(collections, words, or(cond('n', '_eq', 20), and()), byId),
      [1, 2, 3, 4, 5, 6, 7, 8, 9],
    );
  });

  test('sorting by several fields puts nulls last ascending and first descending, ties by key', async ({
    collections,
  }) => {
    const words = await seed(collections, 'words', WORDS_FIELDS, WORDS);
    assert.equal(
      await ids(collections, words, null, [{ field: 'n', direction: 'asc' }]),
      [8, 6, 5, 1, 2, 7, 9, 3, 4],
    );
    assert.equal(
      await ids(collections, words, null, [{ field: 'n', direction: 'desc' }]),
      [4, 3, 2, 7, 9, 1, 5, 6, 8],
    );
    assert.equal(
      await ids(collections, words, null, [
        { field: 'group', direction: 'asc' },
        { field: 'n', direction: 'desc' },
      ]),
      [3, 9, 1, 6, 4, 2, 7, 5, 8],
    );
    assert.equal(
      await ids(collections, words, null, [
        { field: 'group', direction: 'desc' },
        { field: 'id', direction: 'desc' },
      ]),
      [8, 5, 7, 4, 2, 9, 6, 3, 1],
    );
    assert.equal(await ids(collections, words, cond('n', '_eq', 20), []), [2, 7, 9]);
  });

  test('limit and offset page through the sorted rows; past the end and limit 0 give []', async ({
    collections,
  }) => {
    const words = await seed(collections, 'words', WORDS_FIELDS, WORDS);
    const page = async (limit: number | null, offset: number) =>
      (
        await list(collections, words, {
          select: [{ field: 'id', visibleWhen: null }],
          sort: [{ field: 'n', direction: 'asc' }],
          limit,
          offset,
        })
      ).map((item) => item.id);
    assert.equal(await page(3, 0), [8, 6, 5]);
    assert.equal(await page(3, 3), [1, 2, 7]);
    assert.equal(await page(3, 6), [9, 3, 4]);
    assert.equal(await page(3, 9), []);
    assert.equal(await page(5, 1000), []);
    assert.equal(await page(0, 0), []);
    assert.equal(await page(null, 7), [3, 4]);
  });

  test('counts are given only when asked: total over visible rows, filter over visible and filter', async ({
    collections,
  }) => {
    const words = await seed(collections, 'words', WORDS_FIELDS, WORDS);
    const visible = cond('group', '_eq', 'a');
    const filter = cond('n', '_gte', 10);
    const both = await collections.store.list(
      request(words, { visible, filter, limit: 1, count: { total: true, filtered: true } }),
    );
    assert.equal([both.totalCount, both.filterCount], [4, 3]);
    assert.is(JSON.parse(both.json).length, 1);
    const none = await collections.store.list(request(words, { visible, filter }));
    assert.equal([none.totalCount, none.filterCount], [undefined, undefined]);
    assert.ok(!('totalCount' in none) && !('filterCount' in none));
    const totalOnly = await collections.store.list(
      request(words, { filter, count: { total: true, filtered: false } }),
    );
    assert.equal([totalOnly.totalCount, totalOnly.filterCount], [9, undefined]);
    const filterOnly = await collections.store.list(
      request(words, { filter, count: { total: false, filtered: true } }),
    );
    assert.equal([filterOnly.totalCount, filterOnly.filterCount], [undefined, 5]);
  });

  test('visible rows and visibleWhen masks hide what the caller may not see', async ({ collections }) => {
    const words = await seed(collections, 'words', WORDS_FIELDS, WORDS);
    const items = await list(collections, words, {
      visible: cond('group', '_eq', 'b'),
      select: [
        { field: 'id', visibleWhen: null },
        { field: 'word', visibleWhen: cond('n', '_gt', 15) },
        { field: 'n', visibleWhen: or() },
      ],
      sort: [{ field: 'id', direction: 'asc' }],
    });
    assert.equal(items, [
      { id: 2, word: 'Banana', n: null },
      { id: 4, word: null, n: null },
      { id: 7, word: null, n: null },
    ]);
  });

  test('a json path selects the value inside a json field under its own key; nowhere is null', async ({
    collections,
  }) => {
    const values = await seed(collections, 'values', EVERY_COLUMN_TYPE, VALUE_ROWS);
    const at = (key: string, ...path: string[]): SelectedField => ({
      field: 'doc',
      visibleWhen: null,
      json: { path, key },
    });
    const items = await list(collections, values, {
      select: [
        { field: 'id', visibleWhen: null },
        at('s', 's'),
        at('a', 'a'),
        at('a1c', 'a', '1', 'c'),
        at('a0', 'a', '0'),
        at('one', '1'),
        at('deep', 's', 'x', 'y'),
        at('big', '2147483648'),
      ],
      sort: [{ field: 'id', direction: 'asc' }],
    });
    const nothing = { s: null, a: null, a1c: null, a0: null, one: null, deep: null, big: null };
    assert.equal(items, [
      { ...nothing, id: 1, s: 'x', a: [1, { c: null }], a0: 1 },
      { ...nothing, id: 2, one: 'two' },
      { ...nothing, id: 3 },
      { ...nothing, id: 4 },
    ]);
    assert.equal(Object.keys(items[0]!), ['id', 's', 'a', 'a1c', 'a0', 'one', 'deep', 'big']);
    const longest = 'k'.repeat(63);
    const [first] = await list(collections, values, { select: [at(longest, 's')], limit: 1 });
    assert.equal(
      first,
      { [longest]: 'x' },
      'a key of 63 bytes, the most the parser lets through, is kept whole',
    );
  });

  test('a json path is masked as its field is, and read by get and getMany alike', async ({
    collections,
  }) => {
    const values = await seed(collections, 'values', EVERY_COLUMN_TYPE, VALUE_ROWS);
    const select: SelectedField[] = [
      { field: 'id', visibleWhen: null },
      { field: 'doc', visibleWhen: cond('id', '_eq', 2), json: { path: ['1'], key: 'doc_1_json' } },
      { field: 'doc', visibleWhen: null, json: { path: ['a', '0'], key: 'doc_a_0_json' } },
    ];
    assert.equal(await list(collections, values, { select, sort: [{ field: 'id', direction: 'asc' }] }), [
      { id: 1, doc_1_json: null, doc_a_0_json: 1 },
      { id: 2, doc_1_json: 'two', doc_a_0_json: null },
      { id: 3, doc_1_json: null, doc_a_0_json: null },
      { id: 4, doc_1_json: null, doc_a_0_json: null },
    ]);
    const one = await collections.store.get({ collection: values, select, visible: null, id: 2 });
    assert.equal(JSON.parse(one!), { id: 2, doc_1_json: 'two', doc_a_0_json: null });
    const many = await collections.store.getMany({ collection: values, select, visible: null, keys: [1, 2] });
    assert.equal(
      many.map((item) => JSON.parse(item)),
      [
        { id: 1, doc_1_json: null, doc_a_0_json: 1 },
        { id: 2, doc_1_json: 'two', doc_a_0_json: null },
      ],
    );
  });

  test('a json path is only ever data: SQL in it finds nothing and the table is intact', async ({
    collections,
  }) => {
    const values = await seed(collections, 'values', EVERY_COLUMN_TYPE, VALUE_ROWS);
    const path = ["a'); drop table values; --", '"}', '{', '\\'];
    const items = await list(collections, values, {
      select: [{ field: 'doc', visibleWhen: null, json: { path, key: 'x"); --' } }],
    });
    assert.equal(items, [{ 'x"); --': null }, { 'x"); --': null }, { 'x"); --': null }, { 'x"); --': null }]);
    assert.is((await list(collections, values)).length, 4);
  });

  test('get finds a visible item by key; missing and invisible ones are null', async ({ collections }) => {
    const words = await seed(collections, 'words', WORDS_FIELDS, WORDS);
    const get = (id: ScalarValue, visible: BoundFilterNode | null = null, select = all(words)) =>
      collections.store.get({ collection: words, select, visible, id });
    assert.equal(JSON.parse((await get(9))!), { id: 9, word: "O'Reilly", n: 20, group: 'a' });
    assert.is(await get(99), null);
    assert.is(await get(4, cond('group', '_eq', 'a')), null);
    assert.equal(
      JSON.parse(
        (await get(3, cond('group', '_eq', 'a'), [{ field: 'word', visibleWhen: cond('n', '_lt', 0) }]))!,
      ),
      { word: null },
    );
  });

  test('get by uuid key', async ({ collections }) => {
    const tokens = await seed(
      collections,
      'tokens',
      [
        { field: 'id', type: 'uuid', isPrimaryKey: true },
        { field: 'label', type: 'text' },
      ],
      [{ id: '0190a000-0000-7000-8000-00000000000a', label: 'ten' }],
    );
    const get = (id: string) =>
      collections.store.get({ collection: tokens, select: all(tokens), visible: null, id });
    assert.equal(JSON.parse((await get('0190a000-0000-7000-8000-00000000000a'))!), {
      id: '0190a000-0000-7000-8000-00000000000a',
      label: 'ten',
    });
    assert.is(await get('0190a000-0000-7000-8000-00000000000b'), null);
  });

  test('getMany answers the visible items in the order of the keys, repeats included, as get does', async ({
    collections,
  }) => {
    // `key` is a column here too: the statement's own names must not meet the table's.
    const values = await seed(collections, 'values', EVERY_COLUMN_TYPE, VALUE_ROWS);
    const many = (keys: ScalarValue[], visible: BoundFilterNode | null = null, select = all(values)) =>
      collections.store.getMany({ collection: values, select, visible, keys });
    const one = (id: ScalarValue) =>
      collections.store.get({ collection: values, select: all(values), visible: null, id });
    assert.equal(await many([3, 99, 1, 3]), [await one(3), await one(1), await one(3)]);
    assert.equal(await many([]), []);
    assert.equal(await many([1, 2, 3], cond('flag', '_eq', false)), [await one(2)]);
    const masked = [
      { field: 'key', visibleWhen: cond('id', '_eq', 2) },
      { field: 'id', visibleWhen: null },
    ];
    assert.equal(await many([1], null, masked), ['{"key":null,"id":1}']);
  });

  test('SQL in values is only ever data: nothing matches and the table is intact', async ({
    collections,
  }) => {
    const words = await seed(collections, 'words', WORDS_FIELDS, WORDS);
    const attacks = [
      "'; drop table words; --",
      "apple' or '1'='1",
      "%' or 1=1 --",
      '"); delete from words; --',
      '$1',
      '?',
      '\\',
    ];
    for (const attack of attacks) {
      assert.equal(await ids(collections, words, cond('word', '_eq', attack)), []);
      assert.equal(
        await ids(collections, words, cond('word', '_contains', attack)),
        attack === '\\' ? [5] : [],
      );
      assert.equal(await ids(collections, words, cond('word', '_in', [attack])), []);
    }
    const result = await collections.store.list(request(words, { count: { total: true, filtered: false } }));
    assert.is(result.totalCount, 9);
  });

  test('a page is given up to the byte budget exactly, counted in UTF-8 bytes, and refused one byte under', async ({
    collections,
  }) => {
    const values = await seed(collections, 'values', EVERY_COLUMN_TYPE, VALUE_ROWS);
    const sort: SortField[] = [{ field: 'id', direction: 'asc' }];
    const { json } = await collections.store.list(request(values, { sort }));
    const bytes = Buffer.byteLength(json);
    assert.ok(bytes > json.length, 'the rows hold characters of several bytes');
    const within = await collections.store.list(request(values, { sort, maxBytes: bytes }));
    assert.equal(JSON.parse(within.json), EXPECTED_VALUES);
    await refusedAsTooLarge(
      collections.store.list(request(values, { sort, maxBytes: bytes - 1 })),
      bytes - 1,
      bytes,
    );
    // Fewer rows or fewer fields fit where the whole page did not.
    const fewer = await collections.store.list(request(values, { sort, limit: 1, maxBytes: bytes - 1 }));
    assert.equal(JSON.parse(fewer.json), EXPECTED_VALUES.slice(0, 1));
    const select = [{ field: 'id', visibleWhen: null }];
    const narrow = await collections.store.list(request(values, { sort, select, maxBytes: bytes - 1 }));
    assert.equal(JSON.parse(narrow.json), [{ id: 1 }, { id: 2 }, { id: 3 }, { id: 4 }]);
  });

  test('an empty page is 2 bytes; the counts come with a page within the budget', async ({ collections }) => {
    const words = await seed(collections, 'words', WORDS_FIELDS, WORDS);
    const count = { total: true, filtered: true };
    const none = cond('n', '_gt', 1000);
    const empty = await collections.store.list(request(words, { filter: none, count, maxBytes: 2 }));
    assert.equal([JSON.parse(empty.json), empty.totalCount, empty.filterCount], [[], 9, 0]);
    await refusedAsTooLarge(collections.store.list(request(words, { filter: none, maxBytes: 1 })), 1, 2);
  });

  test('get and getMany measure their answer against the budget: the item alone, the items as an array', async ({
    collections,
  }) => {
    const words = await seed(collections, 'words', WORDS_FIELDS, WORDS);
    const select = all(words);
    const item = (await collections.store.get({ collection: words, select, visible: null, id: 9 }))!;
    const size = Buffer.byteLength(item);
    const get = (maxBytes: number, id = 9) =>
      collections.store.get({ collection: words, select, visible: null, id, maxBytes });
    assert.is(await get(size), item);
    await refusedAsTooLarge(get(size - 1), size - 1, size);
    // A missing or hidden item is not measured: its absence is all a caller learns.
    assert.is(await get(1, 99), null);
    assert.is(
      await collections.store.get({
        collection: words,
        select,
        visible: cond('group', '_eq', 'b'),
        id: 9,
        maxBytes: 1,
      }),
      null,
    );

    const many = (maxBytes: number) =>
      collections.store.getMany({ collection: words, select, visible: null, keys: [9, 9], maxBytes });
    const array = 2 * size + 3;
    assert.equal(await many(array), [item, item]);
    await refusedAsTooLarge(many(array - 1), array - 1, array);
  });

  test("a transaction's getMany sees its own writes, within the budget", async ({ collections }) => {
    const words = await seed(collections, 'words', WORDS_FIELDS, WORDS);
    const select = [{ field: 'word', visibleWhen: null }];
    const readBack = (maxBytes: number) =>
      collections.store.write(async (writer) => {
        await writer.update(words, [1], { word: 'Apricot' });
        return writer.getMany({ collection: words, select, visible: null, keys: [1], maxBytes });
      });
    const answer = '{"word":"Apricot"}';
    await refusedAsTooLarge(readBack(answer.length + 1), answer.length + 1, answer.length + 2);
    const unchanged = await collections.store.get({ collection: words, select, visible: null, id: 1 });
    assert.is(unchanged, '{"word":"apple"}', 'the refused transaction wrote nothing');
    assert.equal(await readBack(answer.length + 2), [answer]);
  });

  /** Every id of a keyset walk, page after page, as the list handler chains its cursors. */
  async function walk(
    collections: Collections,
    collection: CollectionSchema,
    sort: SortField[],
    limit: number,
    between?: (page: number) => Promise<void>,
  ) {
    const keyset = keysetOf(sort, collection)!;
    const lastRowFields = keyset.map(({ field }) => field);
    const seen: unknown[] = [];
    let after: BoundFilterNode | null = null;
    for (let page = 0; page < 100; page += 1) {
      const result = await collections.store.list(
        request(collection, {
          select: [{ field: 'id', visibleWhen: null }],
          sort,
          limit,
          after,
          lastRowFields,
        }),
      );
      seen.push(...(JSON.parse(result.json) as Array<{ id: unknown }>).map((item) => item.id));
      if (!result.lastRow) return seen;
      const last = result.lastRow;
      after = afterCondition(
        keyset,
        lastRowFields.map((field) => last[field] ?? null),
        collection,
      );
      await between?.(page);
    }
    throw new Error('the walk did not end');
  }

  test('keyset pages walk every sort, nulls and ties included, exactly as one unpaged read', async ({
    collections,
  }) => {
    const words = await seed(collections, 'words', WORDS_FIELDS, WORDS);
    const sorts: SortField[][] = [
      [],
      [{ field: 'n', direction: 'asc' }],
      [{ field: 'n', direction: 'desc' }],
      [{ field: 'word', direction: 'asc' }],
      [{ field: 'word', direction: 'desc' }],
      [
        { field: 'group', direction: 'asc' },
        { field: 'n', direction: 'desc' },
      ],
      [
        { field: 'group', direction: 'desc' },
        { field: 'n', direction: 'asc' },
      ],
      [
        { field: 'group', direction: 'desc' },
        { field: 'id', direction: 'desc' },
      ],
      [
        { field: 'id', direction: 'desc' },
        { field: 'n', direction: 'asc' },
      ],
    ];
    for (const sort of sorts) {
      const whole = await ids(collections, words, null, sort);
      for (const limit of [1, 2, 4, 9]) {
        assert.equal(
          await walk(collections, words, sort, limit),
          whole,
          `${JSON.stringify(sort)} by ${limit}`,
        );
      }
    }
  });

  test('keyset pages resume after every column type, read back canonical', async ({ collections }) => {
    const values = await seed(collections, 'values', EVERY_COLUMN_TYPE, VALUE_ROWS);
    const sortable = values.fields.filter((field) => field.type !== 'json' && field.type !== 'unknown');
    assert.ok(sortable.length >= 12);
    for (const { name } of sortable) {
      for (const direction of ['asc', 'desc'] as const) {
        const sort: SortField[] = [{ field: name, direction }];
        assert.equal(
          await walk(collections, values, sort, 1),
          await ids(collections, values, null, sort),
          name,
        );
      }
    }
  });

  test('lastRow comes with a full page only, and the cursor condition leaves the counts alone', async ({
    collections,
  }) => {
    const words = await seed(collections, 'words', WORDS_FIELDS, WORDS);
    const sort: SortField[] = [{ field: 'n', direction: 'asc' }];
    const lastRowFields = ['n', 'id'];
    const full = await collections.store.list(request(words, { sort, limit: 9, lastRowFields }));
    assert.equal(full.lastRow, { n: null, id: 4 });
    const short = await collections.store.list(request(words, { sort, limit: 10, lastRowFields }));
    assert.is(short.lastRow, null);
    const unlimited = await collections.store.list(request(words, { sort, lastRowFields }));
    assert.is(unlimited.lastRow, null);
    const plain = await collections.store.list(request(words, { sort, limit: 3 }));
    assert.ok(!('lastRow' in plain));

    const filter = cond('n', '_gte', 10);
    const after = afterCondition(keysetOf(sort, words)!, [20, 7], words);
    const page = await collections.store.list(
      request(words, {
        sort,
        filter,
        after,
        limit: 2,
        lastRowFields,
        count: { total: true, filtered: true },
      }),
    );
    assert.equal(
      JSON.parse(page.json).map((item: { id: number }) => item.id),
      [9, 3],
    );
    assert.equal([page.totalCount, page.filterCount], [9, 5]);
    assert.equal(page.lastRow, { n: 30, id: 3 });
  });

  test('keyset pages stay stable when rows are inserted between them', async ({ collections }) => {
    const words = await seed(collections, 'words', WORDS_FIELDS, WORDS);
    const sort: SortField[] = [{ field: 'n', direction: 'asc' }];
    const seen = await walk(collections, words, sort, 3, async (page) => {
      if (page !== 0) return;
      // After page one ([8, 6, 5]): one row sorts before the cursor, one after it, one ties with the last row.
      await collections.insertRows('words', [
        { id: 10, word: 'early', n: -5, group: 'a' },
        { id: 11, word: 'late', n: 25, group: 'a' },
        { id: 12, word: 'tie', n: 5, group: 'a' },
      ]);
    });
    assert.equal(seen, [8, 6, 5, 12, 1, 2, 7, 9, 11, 3, 4]);
  });

  test('estimates are given only when asked, as whole numbers; the in-memory store answers exactly', async ({
    collections,
  }) => {
    const words = await seed(collections, 'words', WORDS_FIELDS, WORDS);
    const plain = await collections.store.list(request(words, { count: { total: true, filtered: true } }));
    assert.ok(!('estimatedTotalCount' in plain) && !('estimatedFilterCount' in plain));
    const estimated = await collections.store.list(
      request(words, {
        filter: cond('n', '_gte', 10),
        count: { total: false, filtered: false, estimatedTotal: true, estimatedFiltered: true },
      }),
    );
    assert.ok(!('totalCount' in estimated) && !('filterCount' in estimated));
    for (const value of [estimated.estimatedTotalCount, estimated.estimatedFilterCount]) {
      assert.ok(Number.isInteger(value) && value! >= 0, String(value));
    }
    if (target.name === 'memory') {
      assert.equal([estimated.estimatedTotalCount, estimated.estimatedFilterCount], [9, 5]);
    }
  });

  return test;
}
