import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { FieldKind } from '../../studio/src/api/field-shape.ts';
import type { LiveEvent } from '../../studio/src/api/live-items.ts';
import { type RowOrder, withLiveChange } from '../../studio/src/api/live-page.ts';

const order: RowOrder = {
  key: 'id',
  sort: 'temperature',
  kinds: new Map<string, FieldKind>([
    ['id', 'integer'],
    ['temperature', 'number'],
  ]),
};

/** A page by temperature, ascending: -Infinity first and NaN last, as PostgreSQL sorts a float. */
const page = [
  { id: 1, temperature: '-Infinity' },
  { id: 2, temperature: 1.5 },
  { id: 3, temperature: 'NaN' },
];

const ids = (rows: Record<string, unknown>[]) => rows.map((row) => row.id);

test('a changed row with a non-finite float takes its place where the database would sort it', () => {
  const created = (temperature: unknown) =>
    withLiveChange(page, { event: 'create', rows: [{ id: 4, temperature }] }, order, null);
  assert.equal(ids(created('Infinity')), [1, 2, 4, 3], 'Infinity below NaN');
  assert.equal(ids(created('-Infinity')), [1, 4, 2, 3], 'equal to -Infinity, then by key');
  assert.equal(ids(created(-1e308)), [1, 4, 2, 3]);
  assert.equal(ids(created('NaN')), [1, 2, 3, 4], 'NaN equals NaN, then by key');
  const descending = withLiveChange(
    [...page].reverse(),
    { event: 'create', rows: [{ id: 4, temperature: 'Infinity' }] },
    { ...order, sort: '-temperature' },
    null,
  );
  assert.equal(ids(descending), [3, 4, 2, 1]);
});

test('a NaN sorts after the last row of a page that has more: it belongs to a later page', () => {
  const rows = page.slice(0, 2);
  const change: LiveEvent = { event: 'create', rows: [{ id: 4, temperature: 'NaN' }] };
  assert.equal(ids(withLiveChange(rows, change, order, rows[1]!)), [1, 2]);
});

test.run();
