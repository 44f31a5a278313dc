import { nonFiniteRank } from './non-finite-values.ts';

const BOUNDED_NUMERIC = /^numeric\((\d+)(?:,(-?\d+))?\)$/;

/**
 * Whether a decimal (normalized text, as decimal-text.ts makes it) fits a `numeric(p,s)` column of this SQL type: PostgreSQL
 * rounds it to `s` places (half away from zero) and refuses it when the result needs more than `p` digits,
 * with an error that names no column. Checking first lets the refusal name the field. Unbounded `numeric`
 * takes every value we accept. `NaN` fits every numeric column, ±Infinity only an unbounded one
 * (PostgreSQL: "a field with precision p, scale s cannot hold an infinite value").
 */
export function fitsNumericColumn(dbType: string, decimal: string): boolean {
  const match = BOUNDED_NUMERIC.exec(dbType);
  if (!match) return true;
  const rank = nonFiniteRank(decimal);
  if (rank !== 0) return rank === 2;
  const precision = Number(match[1]);
  const scale = Number(match[2] ?? 0);
  const [whole = '', fraction = ''] = decimal.replace('-', '').split('.');
  // The value is digits / 10^places; rounded to `scale` places it is `scaled` / 10^scale.
  const digits = BigInt(whole + fraction);
  const places = fraction.length;
  let scaled: bigint;
  if (places <= scale) scaled = digits * 10n ** BigInt(scale - places);
  else {
    const divisor = 10n ** BigInt(places - scale);
    scaled = digits / divisor + (2n * (digits % divisor) >= divisor ? 1n : 0n);
  }
  return scaled < 10n ** BigInt(precision);
}
