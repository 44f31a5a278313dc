/**
 * The values of numeric and temporal columns that are no JSON number and no calendar reading, spelled as
 * PostgreSQL's JSON writes them and the API answers them (docs/api.md §4). Their canonical form (filter.ts,
 * ScalarValue) is this text — the form the SQL store reads them back in (canonical-value-sql.ts) — and the
 * input side takes exactly these spellings, so that whatever an export holds re-imports.
 */

/** A float's or a numeric's NaN and ±Infinity (numeric has had infinities since PostgreSQL 14). */
export const NON_FINITE_NUMBERS: ReadonlySet<unknown> = new Set(['NaN', 'Infinity', '-Infinity']);

/** A date's, timestamp's or timestamptz's ±infinity, which to_json writes in lower case. */
export const INFINITE_TEMPORALS: ReadonlySet<unknown> = new Set(['infinity', '-infinity']);

/**
 * Where a numeric value stands among the finite ones in PostgreSQL's order: -1 for `-Infinity`, below
 * every number; 1 for `Infinity`, above; 2 for `NaN`, equal to itself and above everything else; 0 for
 * a finite number.
 */
export function nonFiniteRank(text: string): number {
  switch (text) {
    case '-Infinity':
      return -1;
    case 'Infinity':
      return 1;
    case 'NaN':
      return 2;
    default:
      return 0;
  }
}
