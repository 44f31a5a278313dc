import type { FieldSchema } from '../schema/collection-schema.ts';
import { INFINITE_TEMPORALS } from './non-finite-values.ts';

/** `timestamp(3) without time zone`, `timestamp(0) with time zone`, `time(2) without time zone`. */
const PRECISION = /^(?:timestamp|time)\((\d)\)/;
const CANONICAL = /^(?:(\d{4})-(\d{2})-(\d{2})T)?(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?(\+00:00)?$/;
/** 2000-01-01T00:00:00Z in microseconds since 1970: PostgreSQL's timestamps count from it. */
const POSTGRES_EPOCH = 946_684_800_000_000n;
const MICROSECONDS_PER_DAY = 86_400_000_000n;

/**
 * A canonical timestamp, timestamptz or time (temporal-text.ts) as a column declared with fewer fractional
 * digits keeps it: PostgreSQL rounds it to n digits (AdjustTimestampForTypmod, AdjustTimeForTypmod), half
 * away from its epoch — 2000-01-01 for timestamps, so a tie rounds down before it; midnight for a time —
 * carrying into the seconds, days and years. Null when the result is one the API does not take: a year
 * past 9999, or a time of `24:00:00`. Other columns and ±infinity keep the value as it is.
 */
export function roundedForTemporalColumn(
  field: Pick<FieldSchema, 'type' | 'dbType'>,
  value: string,
): string | null {
  if (field.type !== 'timestamp' && field.type !== 'dateTime' && field.type !== 'time') return value;
  const precision = PRECISION.exec(field.dbType);
  const parts = CANONICAL.exec(value);
  if (!precision || !parts || INFINITE_TEMPORALS.has(value)) return value;
  const scale = 10n ** BigInt(6 - Number(precision[1]));
  const [, year, month, day, hour, minute, second, fraction = '', offset = ''] = parts;
  const clock = (BigInt(hour!) * 3600n + BigInt(minute!) * 60n + BigInt(second!)) * 1_000_000n;
  const micros = clock + BigInt(fraction.padEnd(6, '0'));
  if (year === undefined) {
    const rounded = ((micros + scale / 2n) / scale) * scale;
    return rounded >= MICROSECONDS_PER_DAY ? null : clockText(rounded);
  }
  const midnight = new Date(0);
  midnight.setUTCFullYear(Number(year), Number(month) - 1, Number(day));
  const sinceEpoch = BigInt(midnight.getTime()) * 1000n + micros - POSTGRES_EPOCH;
  const rounded =
    sinceEpoch >= 0n
      ? ((sinceEpoch + scale / 2n) / scale) * scale
      : -(((-sinceEpoch + scale / 2n) / scale) * scale);
  const instant = rounded + POSTGRES_EPOCH;
  const days = floorDivide(instant, MICROSECONDS_PER_DAY);
  const date = new Date(Number(days) * 86_400_000);
  if (date.getUTCFullYear() > 9999) return null;
  const datePart = `${pad(date.getUTCFullYear(), 4)}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())}`;
  return `${datePart}T${clockText(instant - days * MICROSECONDS_PER_DAY)}${offset}`;
}

/**
 * An instant as a server-set time in a column of fewer than 3 fractional digits (`timestamptz(0)`) should
 * be: cut, not rounded, to the column's precision, so that the stored time never lies after the moment it
 * stands for — a rule comparing it with `$NOW` (`_lte`) holds, as it does on a column that keeps
 * milliseconds. Whole units of 10^k ms from 1970 are also whole units from 2000, so PostgreSQL then stores
 * it unchanged. Other columns keep the instant.
 */
export function truncatedForTemporalColumn(field: Pick<FieldSchema, 'dbType'>, instant: Date): Date {
  const precision = PRECISION.exec(field.dbType);
  const digits = precision ? Number(precision[1]) : 6;
  if (digits >= 3) return instant;
  const unit = 10 ** (3 - digits);
  return new Date(Math.floor(instant.getTime() / unit) * unit);
}

function floorDivide(a: bigint, b: bigint): bigint {
  const quotient = a / b;
  return a % b < 0n ? quotient - 1n : quotient;
}

/** Microseconds of a day as `hh:mm:ss[.ffffff]`, the fraction without trailing zeros. */
function clockText(micros: bigint): string {
  const seconds = micros / 1_000_000n;
  const fraction = String(micros % 1_000_000n)
    .padStart(6, '0')
    .replace(/0+$/, '');
  const text = `${pad(Number(seconds / 3600n))}:${pad(Number((seconds / 60n) % 60n))}:${pad(Number(seconds % 60n))}`;
  return fraction ? `${text}.${fraction}` : text;
}

const pad = (value: number, width = 2) => String(value).padStart(width, '0');
