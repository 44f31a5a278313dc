import * as assert from 'uvu/assert';
import type { ItemAggregateRequest } from '../../src/application/ports/item-store.ts';
import { DomainError } from '../../src/domain/errors.ts';
import type { BoundFilterNode } from '../../src/domain/query/filter.ts';
import { parseAggregateQuery } from '../../src/domain/query/parse-aggregate-query.ts';
import type { RawItemQuery } from '../../src/domain/query/parse-item-query.ts';
import type { CollectionSchema } from '../../src/domain/schema/collection-schema.ts';
import type { NewField } from '../../src/domain/schema/new-field.ts';
import type { Collections, SeedRow } from '../support/collections.ts';
import type { CollectionsTarget } from '../support/databases.ts';
import { skippableSuite } from '../support/skippable-suite.ts';

type Context = { collections: Collections };

const READINGS_FIELDS: ReadonlyArray<NewField> = [
  { field: 'id', type: 'integer', isPrimaryKey: true },
  { field: 'sensor', type: 'string' },
  { field: 'temperature', type: 'float' },
  { field: 'n', type: 'integer' },
  { field: 'amount', type: 'decimal' },
  { field: 'big', type: 'bigInteger' },
  { field: 'ok', type: 'boolean' },
  { field: 'at', type: 'timestamp' },
  { field: 'instant', type: 'dateTime' },
  { field: 'day', type: 'date' },
  { field: 'clock', type: 'time' },
  { field: 'doc', type: 'json' },
];

const READINGS: ReadonlyArray<SeedRow> = [
  {
    id: 1,
    sensor: 'a',
    temperature: 20.5,
    n: 1,
    amount: '1.10',
    big: '9007199254740993',
    ok: true,
    at: '2024-01-01T10:15:30',
    instant: '2024-01-01T23:30:00+00:00',
    day: '2024-01-01',
    clock: '10:15:30.5',
    doc: { a: 1 },
  },
  {
    id: 2,
    sensor: 'a',
    temperature: 21.5,
    n: 2,
    amount: '2.20',
    big: '9007199254740993',
    ok: false,
    at: '2024-01-08T11:00:00',
    instant: '2024-03-31T22:30:00-02:00',
    day: '2023-01-01',
    clock: '11:00:00',
  },
  {
    id: 3,
    sensor: 'b',
    temperature: null,
    n: 2,
    amount: '123456789012345678901234567890',
    big: '-5',
    ok: null,
    day: '2024-12-30',
  },
  { id: 4, sensor: null, temperature: 10, n: null, big: '7', ok: true },
  { id: 5, sensor: 'b', temperature: 30, n: 5, amount: '-0.000001', big: '3', ok: false },
];

const condition = (field: string, value: number): BoundFilterNode => ({
  kind: 'condition',
  field,
  operator: '_gt',
  value,
});

/** ItemStore.aggregate as docs/api.md §4b promises it, identical on every backend. */
export function itemAggregatesContract(target: CollectionsTarget) {
  const test = skippableSuite<Context>(`ItemStore.aggregate on ${target.name}`, target.skip);
  test.before.each(async (context) => {
    context.collections = await target.fresh();
  });
  test.after(() => target.dispose());

  async function readings(collections: Collections, rows = READINGS): Promise<CollectionSchema> {
    await collections.editor.createCollection('readings', READINGS_FIELDS);
    await collections.insertRows('readings', rows);
    return collections.catalog.current().collections.get('readings')!;
  }

  /** The answer to a query string's aggregate parameters, as parsed for a list with no limits. */
  async function aggregate(
    collections: Collections,
    collection: CollectionSchema,
    raw: RawItemQuery,
    overrides: Partial<ItemAggregateRequest> = {},
  ): Promise<unknown> {
    const query = parseAggregateQuery(raw, collection, { limitDefault: -1, limitMax: -1 });
    const json = await collections.store.aggregate({
      collection,
      aggregates: query.aggregates,
      groupBy: query.groupBy,
      visible: null,
      filter: null,
      sort: query.sort,
      limit: query.limit,
      offset: query.offset,
      ...overrides,
    });
    return JSON.parse(json);
  }

  test('count of * counts rows; of a field, its non-null values', async ({ collections }) => {
    const table = await readings(collections);
    assert.equal(await aggregate(collections, table, { aggregate: { count: '*' } }), [{ count: 5 }]);
    assert.equal(await aggregate(collections, table, { aggregate: { countAll: '*' } }), [{ countAll: 5 }]);
    assert.equal(await aggregate(collections, table, { aggregate: { count: 'temperature,sensor' } }), [
      { count: { temperature: 4, sensor: 4 } },
    ]);
    assert.equal(await aggregate(collections, table, { aggregate: { countDistinct: ['sensor', 'n'] } }), [
      { countDistinct: { sensor: 2, n: 3 } },
    ]);
  });

  test('distinct and groups compare numbers by value and text by text', async ({ collections }) => {
    const table = await readings(collections, [
      { id: 1, sensor: '1.10', amount: '1.10', temperature: 0 },
      { id: 2, sensor: '1.1', amount: '1.1', temperature: -0 },
    ]);
    assert.equal(
      await aggregate(collections, table, { aggregate: { countDistinct: 'sensor,amount,temperature' } }),
      [{ countDistinct: { sensor: 2, amount: 1, temperature: 1 } }],
    );
    assert.equal(await aggregate(collections, table, { aggregate: { count: '*' }, groupBy: 'amount' }), [
      { amount: 1.1, count: 2 },
    ]);
    assert.equal(await aggregate(collections, table, { groupBy: 'sensor' }), [
      { sensor: '1.1' },
      { sensor: '1.10' },
    ]);
  });

  test('without groupBy an empty table is one group; with it, none', async ({ collections }) => {
    const table = await readings(collections, []);
    assert.equal(
      await aggregate(collections, table, { aggregate: '{"count":["*"],"sum":["n"],"max":["day"]}' }),
      [{ count: 0, sum: { n: null }, max: { day: null } }],
    );
    assert.equal(await aggregate(collections, table, { aggregate: { count: '*' }, groupBy: 'sensor' }), []);
  });

  test('sums are exact; averages are doubles', async ({ collections }) => {
    const table = await readings(collections);
    assert.equal(
      await aggregate(collections, table, {
        aggregate: {
          sum: 'n,big,amount,temperature',
          avg: 'n,temperature',
          sumDistinct: 'n',
          avgDistinct: 'n',
        },
      }),
      [
        {
          sum: {
            n: 10,
            big: '18014398509481991',
            amount: '123456789012345678901234567893.299999',
            temperature: 82,
          },
          avg: { n: 2.5, temperature: 20.5 },
          sumDistinct: { n: 8 },
          avgDistinct: { n: 2.6666666666666665 },
        },
      ],
    );
  });

  test('min and max keep the field type and its format', async ({ collections }) => {
    const table = await readings(collections);
    assert.equal(
      await aggregate(collections, table, {
        aggregate: { min: 'sensor,ok,instant,day,clock,big', max: 'sensor,ok,at,amount' },
      }),
      [
        {
          min: {
            sensor: 'a',
            ok: false,
            instant: '2024-01-01T23:30:00+00:00',
            day: '2023-01-01',
            clock: '10:15:30.5',
            big: -5,
          },
          max: { sensor: 'b', ok: true, at: '2024-01-08T11:00:00', amount: '123456789012345678901234567890' },
        },
      ],
    );
  });

  test('groups order by their values, nulls last, and answer groupBy keys first', async ({ collections }) => {
    const table = await readings(collections);
    const groups = await aggregate(collections, table, {
      aggregate: { count: '*', avg: 'temperature' },
      groupBy: ['sensor'],
    });
    assert.equal(groups, [
      { sensor: 'a', count: 2, avg: { temperature: 21 } },
      { sensor: 'b', count: 2, avg: { temperature: 30 } },
      { sensor: null, count: 1, avg: { temperature: 10 } },
    ]);
    assert.equal(Object.keys((groups as object[])[0]!), ['sensor', 'count', 'avg']);
  });

  test('sort by aggregates and groupBy entries, ties on the rest of groupBy', async ({ collections }) => {
    const table = await readings(collections);
    assert.equal(
      await aggregate(collections, table, {
        aggregate: { count: '*', sum: 'n' },
        groupBy: 'sensor,ok',
        sort: '-count,-sum.n',
      }),
      // Descending puts nulls first, as PostgreSQL does.
      [
        { sensor: null, ok: true, count: 1, sum: { n: null } },
        { sensor: 'b', ok: false, count: 1, sum: { n: 5 } },
        { sensor: 'a', ok: false, count: 1, sum: { n: 2 } },
        { sensor: 'b', ok: null, count: 1, sum: { n: 2 } },
        { sensor: 'a', ok: true, count: 1, sum: { n: 1 } },
      ],
    );
    assert.equal(await aggregate(collections, table, { groupBy: 'sensor', sort: '-sensor' }), [
      { sensor: null },
      { sensor: 'b' },
      { sensor: 'a' },
    ]);
  });

  test('date parts group by year, month, week, weekday, hour and second (in UTC)', async ({
    collections,
  }) => {
    const table = await readings(collections);
    assert.equal(
      await aggregate(collections, table, {
        aggregate: { count: '*' },
        groupBy: ['year(day)', 'week(day)', 'weekday(day)'],
      }),
      [
        { day_year: 2023, day_week: 52, day_weekday: 0, count: 1 },
        { day_year: 2024, day_week: 1, day_weekday: 1, count: 2 },
        { day_year: null, day_week: null, day_weekday: null, count: 2 },
      ],
    );
    assert.equal(
      await aggregate(
        collections,
        table,
        {
          aggregate: { count: '*' },
          groupBy: ['month(instant)', 'day(instant)', 'hour(at)', 'minute(at)', 'second(clock)'],
        },
        { filter: { kind: 'condition', field: 'id', operator: '_lte', value: 2 } },
      ),
      [
        { instant_month: 1, instant_day: 1, at_hour: 10, at_minute: 15, clock_second: 30, count: 1 },
        { instant_month: 4, instant_day: 1, at_hour: 11, at_minute: 0, clock_second: 0, count: 1 },
      ],
    );
  });

  test('only visible rows matching the filter are aggregated', async ({ collections }) => {
    const table = await readings(collections);
    assert.equal(
      await aggregate(
        collections,
        table,
        { aggregate: { count: '*', max: 'n' } },
        { visible: condition('id', 1), filter: condition('temperature', 15) },
      ),
      [{ count: 2, max: { n: 5 } }],
    );
  });

  test('limit and offset page the groups', async ({ collections }) => {
    const table = await readings(collections);
    assert.equal(await aggregate(collections, table, { groupBy: 'n', limit: '2', offset: '1' }), [
      { n: 2 },
      { n: 5 },
    ]);
  });

  test('an answer over the byte budget is refused, naming its size', async ({ collections }) => {
    const table = await readings(collections);
    const raw = { aggregate: { count: '*' }, groupBy: 'sensor' };
    // [{"sensor":"a","count":2},{"sensor":"b","count":2},{"sensor":null,"count":1}]
    const size = 77;
    assert.equal(((await aggregate(collections, table, raw, { maxBytes: size })) as unknown[]).length, 3);
    try {
      await aggregate(collections, table, raw, { maxBytes: size - 1 });
      assert.unreachable('expected RESPONSE_TOO_LARGE');
    } catch (error) {
      assert.instance(error, DomainError);
      assert.is((error as DomainError).code, 'RESPONSE_TOO_LARGE');
      assert.equal((error as DomainError).extensions, { maxBytes: size - 1, bytes: size });
    }
  });

  return test;
}
