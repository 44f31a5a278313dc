import { normalizeDecimal } from './decimal-text.ts';
import { nonFiniteRank } from './non-finite-values.ts';

const BOUNDED_NUMERIC = /^numeric\((\d+)(?:,(-?\d+))?\)$/;

/**
 * A decimal (normalized text, as decimal-text.ts makes it) as a `numeric(p,s)` column of this SQL type keeps
 * it: PostgreSQL rounds it to `s` places (half away from zero) and refuses it when the result needs more
 * than `p` digits, with an error that names no column; null then. Checking first lets the refusal name the
 * field, and the rounded value is what a permission's validation must see (`1.005` is stored as `1.01`).
 * Unbounded `numeric` keeps every value we accept as it is. `NaN` fits every numeric column, ±Infinity only
 * an unbounded one (PostgreSQL: "a field with precision p, scale s cannot hold an infinite value").
 */
export function roundedForNumericColumn(dbType: string, decimal: string): string | null {
  const match = BOUNDED_NUMERIC.exec(dbType);
  if (!match) return decimal;
  const rank = nonFiniteRank(decimal);
  if (rank !== 0) return rank === 2 ? decimal : null;
  const precision = Number(match[1]);
  const scale = Number(match[2] ?? 0);
  const negative = decimal.startsWith('-');
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
  if (scaled >= 10n ** BigInt(precision)) return null;
  return normalizeDecimal(`${negative ? '-' : ''}${scaled}e${-scale}`);
}

/** Whether a decimal fits a `numeric(p,s)` column once rounded (roundedForNumericColumn). */
export function fitsNumericColumn(dbType: string, decimal: string): boolean {
  return roundedForNumericColumn(dbType, decimal) !== null;
}
