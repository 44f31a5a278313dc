import ms from 'ms';
import type { DynamicValue } from './filter.ts';
import { describeInput, invalidQuery } from './invalid-query.ts';

const DYNAMIC_PREFIX = /^\$(?:CURRENT_USER|CURRENT_ROLE|NOW)/;
const NOW_WITH_OFFSET = /^\$NOW\((.*)\)$/s;
/** ±100 years: far beyond any sensible offset, well inside what a Date can hold. */
const MAX_OFFSET_MS = 100 * 365.25 * 24 * 60 * 60 * 1000;

/**
 * `$CURRENT_USER`, `$CURRENT_ROLE`, `$NOW`, `$NOW(-1 day)`, `$NOW(+2 hours)` → a DynamicValue; any other
 * string → null (a literal). A string that starts like a dynamic value but is not one (`$CURRENT_USER.role`,
 * `$NOW(soon)`) is refused rather than compared as text, so a typo never turns into a silent literal.
 */
export function parseDynamicValue(raw: string): DynamicValue | null {
  if (!DYNAMIC_PREFIX.test(raw)) return null;
  if (raw === '$CURRENT_USER') return { dynamic: 'CURRENT_USER' };
  if (raw === '$CURRENT_ROLE') return { dynamic: 'CURRENT_ROLE' };
  if (raw === '$NOW') return { dynamic: 'NOW' };
  const offsetMs = offsetOf(raw);
  if (offsetMs === null) {
    throw invalidQuery(`Unsupported dynamic value ${describeInput(raw)}.`, { reason: 'INVALID_VALUE' });
  }
  return { dynamic: 'NOW', offsetMs };
}

/** The `ms` package reads `-1 day`, `2 hours`, `90s`; it has no `+`, so a leading one is taken off first. */
function offsetOf(raw: string): number | null {
  const match = NOW_WITH_OFFSET.exec(raw);
  if (!match) return null;
  const text = match[1]!.trim().replace(/^\+(?=\d)/, '');
  if (text === '') return null;
  let offset: number | undefined;
  try {
    offset = ms(text as ms.StringValue);
  } catch {
    return null;
  }
  if (typeof offset !== 'number' || !Number.isFinite(offset) || Math.abs(offset) > MAX_OFFSET_MS) return null;
  return Math.round(offset);
}
