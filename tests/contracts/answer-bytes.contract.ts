import * as assert from 'uvu/assert';
import type { ItemListRequest, SelectedField } from '../../src/application/ports/item-store.ts';
import type { Collections } from '../support/collections.ts';
import type { CollectionsTarget } from '../support/databases.ts';
import { skippableSuite } from '../support/skippable-suite.ts';

type Context = { collections: Collections };

const plain = (...names: string[]): SelectedField[] => names.map((field) => ({ field, visibleWhen: null }));

/**
 * The answer's text byte for byte, where PostgreSQL writes it its own way (jsonb's `{"a": [1, 2]}`, array
 * columns as `[1, 2]`, numbers inside jsonb in plain notation): the in-memory twin must answer the same
 * bytes, not merely the same JSON (docs/api.md §4). Nested values are formatted as these are
 * (relational-reads.contract.ts).
 */
export function answerBytesContract(target: CollectionsTarget) {
  const test = skippableSuite<Context>(`answer bytes on ${target.name}`, target.skip);
  test.before.each(async (context) => {
    context.collections = await target.fresh();
  });
  test.after(() => target.dispose());

  async function page(collections: Collections, name: string, overrides: Partial<ItemListRequest>) {
    const collection = collections.catalog.current().collections.get(name)!;
    const result = await collections.store.list({
      collection,
      select: plain('id'),
      visible: null,
      filter: null,
      sort: [],
      limit: null,
      offset: 0,
      count: { total: false, filtered: false },
      ...overrides,
    });
    return result.json;
  }

  test('jsonb values, whole and at a path', async ({ collections }) => {
    const { editor } = collections;
    await editor.createCollection('docs', [
      { field: 'id', type: 'integer', isPrimaryKey: true },
      { field: 'doc', type: 'json' },
    ]);
    await collections.insertRows('docs', [
      { id: 1, doc: { b: 1e-7, '10': [1e21, -2.5e-8, 'x:,"y'], a: { z: 1, yy: [] } } },
      { id: 2, doc: [1, 'two', null, {}] },
      { id: 3, doc: null },
      { id: 4, doc: { x: { b: 1, '10': 2 } } },
    ]);
    const first =
      '{"a": {"z": 1, "yy": []}, "b": 0.0000001, "10": [1000000000000000000000, -0.000000025, "x:,\\"y"]}';
    assert.is(
      await page(collections, 'docs', {
        select: [
          ...plain('id', 'doc'),
          { field: 'doc', visibleWhen: null, json: { path: ['a'], key: 'doc_a' } },
          { field: 'doc', visibleWhen: null, json: { path: ['x'], key: 'doc_x' } },
        ],
      }),
      `[{"id":1,"doc":${first},"doc_a":{"z": 1, "yy": []},"doc_x":null},` +
        '{"id":2,"doc":[1, "two", null, {}],"doc_a":null,"doc_x":null},' +
        '{"id":3,"doc":null,"doc_a":null,"doc_x":null},' +
        '{"id":4,"doc":{"x": {"b": 1, "10": 2}},"doc_a":null,"doc_x":{"b": 1, "10": 2}}]',
    );
  });

  test('array columns, as json_agg joins their elements', async ({ collections }) => {
    await collections.createExistingTables();
    await collections.insertRows('tagged', [
      {
        id: 1,
        tags: ['a', 'b "q"', null],
        counts: [1, 2],
        prices: ['1.5', '2'],
        bigs: ['9007199254740993', 1],
        flags: [true, false],
      },
      { id: 2, tags: [], counts: null },
    ]);
    assert.is(
      await page(collections, 'tagged', { select: plain('id', 'tags', 'counts', 'prices', 'bigs', 'flags') }),
      '[{"id":1,"tags":["a", "b \\"q\\"", null],"counts":[1, 2],"prices":[1.5, 2],' +
        '"bigs":["9007199254740993", 1],"flags":[true, false]},' +
        '{"id":2,"tags":[],"counts":null,"prices":null,"bigs":null,"flags":null}]',
    );
  });

  return test;
}
