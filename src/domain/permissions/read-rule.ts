import type { BoundFilterNode } from '../query/filter.ts';

/**
 * What a caller may read of one collection, after combining every read permission of their role with OR.
 * A row is visible when it matches `rows`. A field of a visible row is readable when its entry in
 * `fields` matches the row too: with several permissions granting different fields to different rows,
 * a field is shown only on the rows of a permission that grants it (others read as null) — so OR-ing
 * permissions never shows a field on a row no single permission shows it on.
 */
export type ReadRule = {
  /** null = every row. */
  readonly rows: BoundFilterNode | null;
  /** Readable fields; the value is the extra condition under which the field is shown (null = always). */
  readonly fields: ReadonlyMap<string, BoundFilterNode | null>;
};
