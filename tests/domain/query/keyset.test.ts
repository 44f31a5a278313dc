import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { matchesFilter } from '../../../src/domain/query/evaluate-filter.ts';
import type { ScalarValue } from '../../../src/domain/query/filter.ts';
import type { SortField } from '../../../src/domain/query/item-query.ts';
import { afterCondition, keysetOf } from '../../../src/domain/query/keyset.ts';
import type { CollectionSchema } from '../../../src/domain/schema/collection-schema.ts';
import { field } from '../../support/cargos-schema.ts';

const ITEMS: CollectionSchema = {
  name: 'items',
  primaryKey: 'id',
  fields: [
    field('id', 'integer', 'integer', { nullable: false, isPrimaryKey: true, isUnique: true }),
    field('n', 'integer', 'integer'),
    field('rank', 'integer', 'integer', { nullable: false }),
  ],
};

const asc = (name: string): SortField => ({ field: name, direction: 'asc' });
const desc = (name: string): SortField => ({ field: name, direction: 'desc' });

test('the keyset is the sort ended by the primary key, cut after it when sorted on; none without a key', () => {
  assert.equal(keysetOf([], ITEMS), [asc('id')]);
  assert.equal(keysetOf([desc('n')], ITEMS), [desc('n'), asc('id')]);
  assert.equal(keysetOf([desc('id'), asc('n')], ITEMS), [desc('id')]);
  assert.equal(keysetOf([asc('n'), desc('id'), asc('rank')], ITEMS), [asc('n'), desc('id')]);
  assert.is(keysetOf([asc('n')], { ...ITEMS, primaryKey: null }), null);
});

/** Every row's position in PostgreSQL's order: nulls last ascending, first descending, ties by id. */
function sorted(rows: Array<Record<string, ScalarValue | null>>, keyset: SortField[]) {
  return [...rows].sort((a, b) => {
    for (const { field: name, direction } of keyset) {
      const x = a[name] ?? null;
      const y = b[name] ?? null;
      if (x === y) continue;
      const order = x === null ? 1 : y === null ? -1 : (x as number) < (y as number) ? -1 : 1;
      return direction === 'asc' ? order : -order;
    }
    return 0;
  });
}

test('after a row are exactly the rows that follow it, for every sort and every row, nulls included', () => {
  const rows: Array<Record<string, ScalarValue | null>> = [];
  let id = 1;
  for (const n of [null, 1, 2, 2]) for (const rank of [1, 2]) rows.push({ id: id++, n, rank });
  const sorts: SortField[][] = [
    [],
    [asc('n')],
    [desc('n')],
    [asc('rank'), desc('n')],
    [desc('rank'), asc('n')],
    [desc('n'), desc('rank')],
    [desc('id')],
  ];
  for (const sort of sorts) {
    const keyset = keysetOf(sort, ITEMS)!;
    const order = sorted(rows, keyset);
    order.forEach((row, position) => {
      const condition = afterCondition(
        keyset,
        keyset.map(({ field: name }) => row[name] ?? null),
        ITEMS,
      );
      const after = order.filter((candidate) => matchesFilter(condition, candidate, ITEMS));
      assert.equal(after, order.slice(position + 1), `${JSON.stringify(sort)} after ${JSON.stringify(row)}`);
    });
  }
});

test('after a row of a character(n) column come the rows holding the same padded value, as PostgreSQL compares them', () => {
  const codes: CollectionSchema = {
    name: 'codes',
    primaryKey: 'id',
    fields: [
      field('id', 'integer', 'integer', { nullable: false, isPrimaryKey: true, isUnique: true }),
      field('code', 'string', 'character(3)', { maxLength: 3 }),
    ],
  };
  // As PostgreSQL reads a char(3): padded. Sorted by code, then id: 1, 3, 4, 2.
  const rows = [
    { id: 1, code: 'ab ' },
    { id: 2, code: 'abc' },
    { id: 3, code: 'ab ' },
    { id: 4, code: 'ab ' },
  ];
  const following = (keyset: SortField[], last: { id: number; code: string }) => {
    const condition = afterCondition(
      keyset,
      keyset.map(({ field: name }) => last[name as 'id' | 'code']),
      codes,
    );
    return rows.filter((row) => matchesFilter(condition, row, codes)).map((row) => row.id);
  };
  assert.equal(following([asc('code'), asc('id')], rows[0]!), [2, 3, 4]);
  assert.equal(following([desc('code'), asc('id')], rows[0]!), [3, 4]);
  assert.equal(following([desc('code'), asc('id')], rows[3]!), []);
});

test('a not-null first field bounds the whole condition, so an index can start at the cursor', () => {
  assert.equal(afterCondition([asc('id')], [7], ITEMS), {
    kind: 'condition',
    field: 'id',
    operator: '_gt',
    value: 7,
  });
  const bounded = afterCondition([desc('rank'), asc('id')], [3, 7], ITEMS);
  assert.equal(bounded.kind === 'and' ? bounded.nodes[0] : null, {
    kind: 'condition',
    field: 'rank',
    operator: '_lte',
    value: 3,
  });
  const nullable = afterCondition([asc('n'), asc('id')], [3, 7], ITEMS);
  assert.is(nullable.kind, 'or');
});

test.run();
