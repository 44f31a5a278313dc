import type { FieldKind } from './capabilities.ts';
import type { LiveEvent } from './live-items.ts';
import { compareNumbers } from './non-finite-numbers.ts';

type Row = Record<string, unknown>;

/** The order a list answers in (docs/api.md §4): `sort` (`-` descending) if any, then the key ascending. */
export type RowOrder = {
  key: string;
  sort: string | null;
  kinds: ReadonlyMap<string, FieldKind>;
};

/**
 * The rows of a first page after a change, as a list would now answer them as far as the page can tell: a
 * deleted row leaves; a created or updated row takes its place in the order, unless it sorts after `last`,
 * the last row of the page as it was loaded when more rows follow it (null when none do). The next cursor
 * stands for "after `last`", so such a row belongs to a later page; the page may grow past its limit, but
 * never keeps a row the next page would show again.
 */
export function withLiveChange(
  rows: readonly Row[],
  change: LiveEvent,
  order: RowOrder,
  last: Row | null,
): Row[] {
  if (change.event === 'init' || change.event === 'gap') return [...rows];
  if (change.event === 'delete') {
    const gone = new Set(change.keys.map(String));
    return rows.filter((row) => !gone.has(String(row[order.key])));
  }
  let changedRows = [...rows];
  for (const changed of change.rows) {
    const key = String(changed[order.key]);
    const others = changedRows.filter((row) => String(row[order.key]) !== key);
    if (last !== null && compareRows(changed, last, order) > 0) {
      changedRows = others;
      continue;
    }
    const at = others.findIndex((row) => compareRows(changed, row, order) < 0);
    changedRows = at === -1 ? [...others, changed] : [...others.slice(0, at), changed, ...others.slice(at)];
  }
  return changedRows;
}

/** Whether two answers hold the same rows with the same values, in the same order. */
export function sameRows(a: readonly Row[], b: readonly Row[]): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function compareRows(a: Row, b: Row, order: RowOrder): number {
  if (order.sort !== null) {
    const descending = order.sort.startsWith('-');
    const field = descending ? order.sort.slice(1) : order.sort;
    const compared = compareValues(a[field], b[field], order.kinds.get(field));
    if (compared !== 0) return descending ? -compared : compared;
  }
  return compareValues(a[order.key], b[order.key], order.kinds.get(order.key));
}

/** Nulls after every value (so first when descending), as PostgreSQL orders them. */
function compareValues(a: unknown, b: unknown, kind: FieldKind | undefined): number {
  if (a === null || a === undefined) return b === null || b === undefined ? 0 : 1;
  if (b === null || b === undefined) return -1;
  // Big integers and decimals are written as strings, and a float's NaN and ±Infinity too: compared as
  // numbers, in the database's order.
  if (kind === 'number' || kind === 'integer') return compareNumbers(a, b);
  if (typeof a === 'boolean' || typeof b === 'boolean') return Number(a) - Number(b);
  const [x, y] = [String(a), String(b)];
  return x < y ? -1 : x > y ? 1 : 0;
}
