import * as assert from 'uvu/assert';
import type { ItemValues, ItemWriter, StoredItem } from '../../src/application/ports/item-store.ts';
import { DomainError, type ErrorCode } from '../../src/domain/errors.ts';
import type { BoundFilterNode, ScalarValue } from '../../src/domain/query/filter.ts';
import type { CollectionSchema } from '../../src/domain/schema/collection-schema.ts';
import type { NewField } from '../../src/domain/schema/new-field.ts';
import type { Collections } from '../support/collections.ts';
import type { CollectionsTarget } from '../support/databases.ts';
import { EVERY_COLUMN_TYPE } from '../support/every-column-type.ts';
import { skippableSuite } from '../support/skippable-suite.ts';

type Context = { collections: Collections };

/** Canonical values (filter.ts, ScalarValue), edges included; each must read back exactly as written. */
const TYPED_ROWS: ReadonlyArray<ItemValues> = [
  {
    key: '0190a000-0000-7000-8000-00000000000a',
    label: 'Ünïcødé ✓ 𝄞 "quoted" \\ back',
    body: 'line\nbreak',
    small: -2147483648,
    big: '9007199254740993',
    ratio: 0.1,
    price: '123456789012345678901234567890.000000000000000001',
    flag: true,
    at: '2024-01-02T03:04:05.123456',
    instant: '2024-06-30T23:59:59.5+00:00',
    day: '2024-02-29',
    clock: '13:01:02.25',
    doc: '{"a":[1,{"c":null}],"b":1,"s":"x"}',
  },
  {
    key: null,
    label: '',
    body: null,
    small: 0,
    big: '-9223372036854775808',
    ratio: -1.5e-10,
    price: '-0.000001',
    flag: false,
    at: '0001-01-01T00:00:00',
    instant: '2024-01-02T01:04:05+00:00',
    day: '1999-12-31',
    clock: '00:00:00',
    doc: '[1,"two",null,{"z":[]}]',
  },
  { doc: '"just a string"', big: '9223372036854775807', price: '0' },
  { doc: 'null' },
  { doc: '42.5' },
];

const PEOPLE_FIELDS: ReadonlyArray<NewField> = [
  { field: 'id', type: 'integer', isPrimaryKey: true },
  { field: 'name', type: 'string', maxLength: 5, isNullable: false },
  { field: 'email', type: 'string', isUnique: true },
  { field: 'status', type: 'string', defaultValue: 'draft' },
  { field: 'rank', type: 'integer', defaultValue: 7 },
  { field: 'active', type: 'boolean', defaultValue: false },
  { field: 'note', type: 'text' },
];

const COUNTER_FIELDS: ReadonlyArray<NewField> = [
  { field: 'id', type: 'uuid', isPrimaryKey: true },
  { field: 'count', type: 'integer', isNullable: false, defaultValue: 0 },
  { field: 'left', type: 'string' },
  { field: 'right', type: 'string' },
];

const cond = (field: string, operator: '_eq' | '_gt', value: ScalarValue): BoundFilterNode => ({
  kind: 'condition',
  field,
  operator,
  value,
});

/** ItemStore.write and its ItemWriter as the write handlers rely on them (docs/api.md §5), for every backend. */
export function itemWriterContract(target: CollectionsTarget) {
  const test = skippableSuite<Context>(`ItemWriter on ${target.name}`, target.skip);
  test.before.each(async (context) => {
    context.collections = await target.fresh();
  });
  test.after(() => target.dispose());

  async function create(collections: Collections, name: string, fields: ReadonlyArray<NewField>) {
    await collections.editor.createCollection(name, fields);
    return collections.catalog.current().collections.get(name)!;
  }

  const write = <T>(collections: Collections, work: (writer: ItemWriter) => Promise<T>) =>
    collections.store.write(work);

  /** Committed rows, read in a transaction of their own, in key order. */
  const rows = (
    collections: Collections,
    collection: CollectionSchema,
    filter: BoundFilterNode | null = null,
  ) => write(collections, (writer) => writer.lockMatching(collection, filter));

  async function count(collections: Collections, collection: CollectionSchema): Promise<number> {
    const result = await collections.store.list({
      collection,
      select: [],
      visible: null,
      filter: null,
      sort: [],
      limit: 0,
      offset: 0,
      count: { total: true, filtered: false },
    });
    return result.totalCount!;
  }

  async function refusal(promise: Promise<unknown>, code: ErrorCode, field?: string): Promise<DomainError> {
    try {
      await promise;
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      assert.is(error.code, code, error.message);
      if (field !== undefined) assert.is(error.extensions.field, field, error.message);
      return error;
    }
    throw new assert.Assertion({ message: `expected ${code}, but the write succeeded` } as never);
  }

  const plain = (row: StoredItem | undefined) => (row === undefined ? undefined : { ...row });

  test('insert returns identity keys in input order and applies defaults', async ({ collections }) => {
    const people = await create(collections, 'people', PEOPLE_FIELDS);
    const keys = await write(collections, (writer) =>
      writer.insert(people, [{ name: 'ann' }, { name: 'bob', rank: 1 }, { name: 'cy', status: null }]),
    );
    assert.equal(keys, [1, 2, 3]);
    const more = await write(collections, (writer) => writer.insert(people, [{ name: 'dee' }]));
    assert.equal(more, [4]);
    assert.equal((await rows(collections, people)).map(plain), [
      { id: 1, name: 'ann', email: null, status: 'draft', rank: 7, active: false, note: null },
      { id: 2, name: 'bob', email: null, status: 'draft', rank: 1, active: false, note: null },
      { id: 3, name: 'cy', email: null, status: null, rank: 7, active: false, note: null },
      { id: 4, name: 'dee', email: null, status: 'draft', rank: 7, active: false, note: null },
    ]);
  });

  test('rows with different fields insert together, each missing field taking its default', async ({
    collections,
  }) => {
    const people = await create(collections, 'people', PEOPLE_FIELDS);
    const keys = await write(collections, (writer) =>
      writer.insert(people, [
        { name: 'a', note: 'n' },
        { rank: 3, name: 'b' },
        { active: true, name: 'c', email: 'c@x' },
      ]),
    );
    assert.equal(keys, [1, 2, 3]);
    const stored = await rows(collections, people);
    assert.equal(
      stored.map((row) => [row.name, row.note, row.rank, row.active, row.email, row.status]),
      [
        ['a', 'n', 7, false, null, 'draft'],
        ['b', null, 3, false, null, 'draft'],
        ['c', null, 7, true, 'c@x', 'draft'],
      ],
    );
  });

  test('uuid, text and bigInteger keys come back canonical, in input order', async ({ collections }) => {
    const byUuid = await create(collections, 'by_uuid', [{ field: 'id', type: 'uuid', isPrimaryKey: true }]);
    const uuids = [
      '0190a000-0000-7000-8000-000000000003',
      '0190a000-0000-7000-8000-000000000001',
      '0190a000-0000-7000-8000-000000000002',
    ];
    assert.equal(
      await write(collections, (writer) =>
        writer.insert(
          byUuid,
          uuids.map((id) => ({ id })),
        ),
      ),
      uuids,
    );

    const byCode = await create(collections, 'by_code', [
      { field: 'code', type: 'string', isPrimaryKey: true },
      { field: 'n', type: 'integer' },
    ]);
    const codes = ['b', 'a', "O'Reilly", 'Ü'];
    assert.equal(
      await write(collections, (writer) =>
        writer.insert(
          byCode,
          codes.map((code) => ({ code })),
        ),
      ),
      codes,
    );

    const byBig = await create(collections, 'by_big', [
      { field: 'id', type: 'bigInteger', isPrimaryKey: true },
      { field: 'n', type: 'integer' },
    ]);
    assert.equal(await write(collections, (writer) => writer.insert(byBig, [{ n: 1 }, { n: 2 }])), [
      '1',
      '2',
    ]);
    const locked = await write(collections, (writer) => writer.lockRows(byBig, ['2', '3']));
    assert.equal([...locked.keys()], ['2']);
    assert.equal(plain(locked.get('2')), { id: '2', n: 2 });
  });

  test('a collection without a primary key takes inserts and returns no keys', async ({ collections }) => {
    const log = await create(collections, 'log', [{ field: 'line', type: 'text' }]);
    assert.equal(
      await write(collections, (writer) => writer.insert(log, [{ line: 'a' }, { line: 'b' }])),
      [],
    );
    assert.is(await count(collections, log), 2);
  });

  test('every column type round-trips canonically through insert and lockRows', async ({ collections }) => {
    const typed = await create(collections, 'typed', EVERY_COLUMN_TYPE);
    const keys = await write(collections, (writer) => writer.insert(typed, TYPED_ROWS));
    assert.equal(keys, [1, 2, 3, 4, 5]);
    const locked = await write(collections, (writer) => writer.lockRows(typed, keys));
    assert.equal([...locked.keys()].sort(), ['1', '2', '3', '4', '5']);
    TYPED_ROWS.forEach((written, index) => {
      const expected = Object.fromEntries(
        EVERY_COLUMN_TYPE.map(({ field }) => [field, field === 'id' ? index + 1 : (written[field] ?? null)]),
      );
      assert.equal(plain(locked.get(String(index + 1))), expected, `row ${index + 1}`);
    });
    // A JSON null is a value, not a missing one.
    assert.is(locked.get('4')!.doc, 'null');
    assert.is(locked.get('5')!.label, null);
  });

  test('insertBulk stores what insert stores, every column type, keys in input order', async ({
    collections,
  }) => {
    const typed = await create(collections, 'typed', EVERY_COLUMN_TYPE);
    // Rows of several shapes, interleaved: each shape is one statement, the keys still come back in order.
    const rows = [
      TYPED_ROWS[2]!,
      TYPED_ROWS[0]!,
      TYPED_ROWS[3]!,
      TYPED_ROWS[1]!,
      TYPED_ROWS[4]!,
      TYPED_ROWS[0]!,
      {},
    ];
    const keys = await write(collections, (writer) => writer.insertBulk(typed, rows));
    assert.equal(keys, [1, 2, 3, 4, 5, 6, 7]);
    const locked = await write(collections, (writer) => writer.lockRows(typed, keys));
    rows.forEach((written, index) => {
      const expected = Object.fromEntries(
        EVERY_COLUMN_TYPE.map(({ field }) => [field, field === 'id' ? index + 1 : (written[field] ?? null)]),
      );
      assert.equal(plain(locked.get(String(index + 1))), expected, `row ${index + 1}`);
    });
  });

  test('update sets only the given columns, on the given keys', async ({ collections }) => {
    const people = await create(collections, 'people', PEOPLE_FIELDS);
    await write(collections, (writer) =>
      writer.insert(people, [
        { name: 'a', note: 'one', email: 'a@x' },
        { name: 'b', note: 'two', email: 'b@x' },
        { name: 'c', note: 'three', email: 'c@x' },
      ]),
    );
    await write(collections, (writer) => writer.update(people, [1, 3, 99], { note: null, rank: 0 }));
    const stored = await rows(collections, people);
    assert.equal(
      stored.map((row) => [row.id, row.name, row.note, row.rank, row.email, row.status]),
      [
        [1, 'a', null, 0, 'a@x', 'draft'],
        [2, 'b', 'two', 7, 'b@x', 'draft'],
        [3, 'c', null, 0, 'c@x', 'draft'],
      ],
    );
    // Nothing to set, or no key: nothing happens.
    await write(collections, async (writer) => {
      await writer.update(people, [1], {});
      await writer.update(people, [], { note: 'x' });
    });
    assert.equal(
      (await rows(collections, people)).map((row) => row.note),
      [null, 'two', null],
    );
  });

  test('delete removes the rows with the given keys; unknown keys are ignored', async ({ collections }) => {
    const people = await create(collections, 'people', PEOPLE_FIELDS);
    await write(collections, (writer) =>
      writer.insert(people, [{ name: 'a' }, { name: 'b' }, { name: 'c' }]),
    );
    await write(collections, (writer) => writer.delete(people, [1, 3, 42]));
    assert.equal(
      (await rows(collections, people)).map((row) => row.id),
      [2],
    );
    await write(collections, (writer) => writer.delete(people, []));
    assert.is(await count(collections, people), 1);
  });

  test('lockRows answers the existing keys; lockMatching the filtered rows in key order', async ({
    collections,
  }) => {
    const people = await create(collections, 'people', PEOPLE_FIELDS);
    await write(collections, (writer) =>
      writer.insert(people, [
        { name: 'e', rank: 5 },
        { name: 'd', rank: 9 },
        { name: 'c', rank: 1 },
        { name: 'b', rank: 8 },
      ]),
    );
    const locked = await write(collections, (writer) => writer.lockRows(people, [4, 2, 77]));
    assert.equal([...locked.keys()].sort(), ['2', '4']);
    assert.equal(plain(locked.get('4')), {
      id: 4,
      name: 'b',
      email: null,
      status: 'draft',
      rank: 8,
      active: false,
      note: null,
    });
    assert.equal(
      (await rows(collections, people, cond('rank', '_gt', 4))).map((row) => row.id),
      [1, 2, 4],
    );
    assert.equal((await rows(collections, people, cond('name', '_eq', 'zzz'))).length, 0);
    assert.equal(
      (await rows(collections, people)).map((row) => row.id),
      [1, 2, 3, 4],
    );
    assert.equal(
      (await write(collections, (writer) => writer.lockMatching(people, cond('rank', '_gt', 4), 2))).map(
        (row) => row.id,
      ),
      [1, 2],
    );
  });

  test('a batch of 1000 whose last row breaks a unique constraint writes nothing', async ({
    collections,
  }) => {
    const people = await create(collections, 'people', PEOPLE_FIELDS);
    await write(collections, (writer) => writer.insert(people, [{ name: 'first', email: 'taken@x' }]));
    const batch = Array.from({ length: 1000 }, (_, index) => ({
      name: `n${index % 1000}`.slice(0, 5),
      email: index === 999 ? 'taken@x' : `p${index}@x`,
    }));
    await refusal(
      write(collections, (writer) => writer.insert(people, batch)),
      'RECORD_NOT_UNIQUE',
      'email',
    );
    assert.is(await count(collections, people), 1);
    // A duplicate within the batch itself, too.
    const twice = batch.map((row, index) => (index === 999 ? { ...row, email: 'p0@x' } : row));
    await refusal(
      write(collections, (writer) => writer.insert(people, twice)),
      'RECORD_NOT_UNIQUE',
      'email',
    );
    assert.is(await count(collections, people), 1);
  });

  test('a throw from work after successful writes rolls all of them back', async ({ collections }) => {
    const people = await create(collections, 'people', PEOPLE_FIELDS);
    await write(collections, (writer) => writer.insert(people, [{ name: 'keep', note: 'old' }]));
    const failure = new Error('changed my mind');
    try {
      await write(collections, async (writer) => {
        await writer.insert(people, [{ name: 'new' }]);
        await writer.update(people, [1], { note: 'new' });
        await writer.delete(people, [1]);
        throw failure;
      });
      assert.unreachable('write resolved');
    } catch (error) {
      assert.is(error, failure, 'the error of work passes unchanged');
    }
    assert.equal(
      (await rows(collections, people)).map((row) => [row.id, row.note]),
      [[1, 'old']],
    );
  });

  test('a failed statement fails the write even when work swallows the error', async ({ collections }) => {
    const people = await create(collections, 'people', PEOPLE_FIELDS);
    await write(collections, (writer) => writer.insert(people, [{ name: 'a', email: 'a@x' }]));
    await refusal(
      write(collections, async (writer) => {
        await writer.insert(people, [{ name: 'b' }]);
        await writer.insert(people, [{ name: 'c', email: 'a@x' }]).catch(() => undefined);
        return 'done';
      }),
      'RECORD_NOT_UNIQUE',
      'email',
    );
    assert.is(await count(collections, people), 1);
  });

  test('constraint violations name their field', async ({ collections }) => {
    const people = await create(collections, 'people', PEOPLE_FIELDS);
    await write(collections, (writer) =>
      writer.insert(people, [
        { name: 'a', email: 'a@x' },
        { name: 'b', email: 'b@x' },
      ]),
    );
    const attempt = (work: (writer: ItemWriter) => Promise<unknown>) => write(collections, work);
    await refusal(
      attempt((writer) => writer.insert(people, [{ name: 'x', email: 'b@x' }])),
      'RECORD_NOT_UNIQUE',
      'email',
    );
    await refusal(
      attempt((writer) => writer.update(people, [1], { email: 'b@x' })),
      'RECORD_NOT_UNIQUE',
      'email',
    );
    await refusal(
      attempt((writer) => writer.insert(people, [{ id: 2, name: 'dup' }])),
      'RECORD_NOT_UNIQUE',
      'id',
    );
    await refusal(
      attempt((writer) => writer.insert(people, [{ note: 'no name' }])),
      'FAILED_VALIDATION',
      'name',
    );
    await refusal(
      attempt((writer) => writer.insert(people, [{ name: null }])),
      'FAILED_VALIDATION',
      'name',
    );
    await refusal(
      attempt((writer) => writer.update(people, [2], { name: null })),
      'FAILED_VALIDATION',
      'name',
    );
    const tooLong = await refusal(
      attempt((writer) => writer.insert(people, [{ name: 'ok', note: 'n' }, { name: 'toolong' }])),
      'FAILED_VALIDATION',
      'name',
    );
    assert.not.match(tooLong.message, /toolong|insert|values/i, 'no value or SQL in the message');
    await refusal(
      attempt((writer) => writer.update(people, [1], { name: 'sixsix' })),
      'FAILED_VALIDATION',
      'name',
    );
    assert.equal(
      (await rows(collections, people)).map((row) => [row.id, row.name, row.email]),
      [
        [1, 'a', 'a@x'],
        [2, 'b', 'b@x'],
      ],
    );
  });

  test('concurrent read-modify-writes of one row through lockRows lose no increment', async ({
    collections,
  }) => {
    const counters = await create(collections, 'counters', COUNTER_FIELDS);
    const id = '0190a000-0000-7000-8000-0000000000c1';
    await write(collections, (writer) => writer.insert(counters, [{ id }]));
    const increment = () =>
      write(collections, async (writer) => {
        const row = (await writer.lockRows(counters, [id])).get(id)!;
        // Give the others every chance to interleave between the read and the write.
        await new Promise((resolve) => setTimeout(resolve, 1));
        await writer.update(counters, [id], { count: (row.count as number) + 1 });
      });
    await Promise.all(Array.from({ length: 20 }, increment));
    assert.is((await rows(collections, counters))[0]!.count, 20);
  });

  test('concurrent updates of different columns of one row lose no column', async ({ collections }) => {
    const counters = await create(collections, 'counters', COUNTER_FIELDS);
    const id = '0190a000-0000-7000-8000-0000000000c2';
    await write(collections, (writer) => writer.insert(counters, [{ id }]));
    // The row lock orders the writers, not the order they were started in (a pool hands out connections
    // in any order): each notes its value once it holds the lock.
    const lockOrder: string[] = [];
    const set = (column: 'left' | 'right', value: string) =>
      write(collections, async (writer) => {
        await writer.lockRows(counters, [id]);
        lockOrder.push(value);
        await new Promise((resolve) => setTimeout(resolve, 1));
        await writer.update(counters, [id], { [column]: value });
      });
    await Promise.all(
      Array.from({ length: 10 }, (_, index) => [set('left', `l${index}`), set('right', `r${index}`)]).flat(),
    );
    const [row] = await rows(collections, counters);
    // Last writer wins per column; neither column is lost to the other's writes.
    assert.is(
      row!.left,
      lockOrder.findLast((value) => value.startsWith('l')),
    );
    assert.is(
      row!.right,
      lockOrder.findLast((value) => value.startsWith('r')),
    );
    assert.is(row!.count, 0);
  });

  test('a read started during a write that fails sees the rows as before', async ({ collections }) => {
    const counters = await create(collections, 'counters', COUNTER_FIELDS);
    const id = '0190a000-0000-7000-8000-0000000000c3';
    await write(collections, (writer) => writer.insert(counters, [{ id, left: 'before' }]));
    let read: Promise<StoredItem[]> | undefined;
    await write(collections, async (writer) => {
      await writer.update(counters, [id], { left: 'during' });
      // Not awaited inside: on PGlite it queues behind this transaction, which must not wait for it.
      read = rows(collections, counters);
      throw new Error('roll back');
    }).catch(() => undefined);
    assert.is((await read!)[0]!.left, 'before');
  });

  return test;
}
