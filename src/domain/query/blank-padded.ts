import { characterCount } from '../character-count.ts';
import type { FieldSchema } from '../schema/collection-schema.ts';
import type { ScalarValue } from './filter.ts';

/**
 * PostgreSQL's `character(n)` (bpchar) holds its values padded with spaces to n characters: it reads them
 * padded (`"ab "` in a `char(3)`), and `LIKE` sees the padding, but a comparison does not (`=`, `<`, `in`,
 * `between`, against the text the API binds: `'ab '::char(3) = 'ab'`). A varchar or text column has no
 * such rule. Only SQL creates such columns (`POST /fields` makes varchar).
 */
const BLANK_PADDED = /^(?:character(?:\(\d+\))?|bpchar)$/;

export function isBlankPadded(field: Pick<FieldSchema, 'dbType'>): boolean {
  return BLANK_PADDED.test(field.dbType);
}

/** A value as a comparison on its column sees it: a `character(n)` value without its trailing spaces. */
export function comparedValue(field: Pick<FieldSchema, 'dbType'>, value: ScalarValue): ScalarValue {
  return typeof value === 'string' && isBlankPadded(field) ? value.replace(TRAILING_SPACES, '') : value;
}

/**
 * A text written into a `character(n)` column as the column keeps it: padded to n, spaces beyond n dropped
 * (PostgreSQL drops excess characters that are all spaces, and refuses others); null when it does not fit.
 */
export function paddedToLength(text: string, length: number): string | null {
  const trimmed = text.replace(TRAILING_SPACES, '');
  const count = characterCount(trimmed, length);
  return count > length ? null : trimmed + ' '.repeat(length - count);
}

const TRAILING_SPACES = / +$/;
