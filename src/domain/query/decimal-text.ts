/**
 * Exact decimal numbers as text, for `numeric` and `bigint` values: JavaScript numbers would round
 * anything beyond 15–17 significant digits, and a filter must mean exactly what PostgreSQL compares.
 */
const DECIMAL = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d{1,7}))?$/;

/**
 * Bounds well inside what PostgreSQL's `numeric` accepts, so a value we accept is never a database error.
 * The length bounds the plain text too, and is long enough for that of any number of up to 1,000
 * characters with an exponent of up to ±1,000 (at most 2,003 characters): the API answers a numeric in its
 * plain text, and that answer must be taken back in a filter or a write.
 */
const MAX_TEXT_LENGTH = 2048;
/** PostgreSQL's `numeric` input refuses a larger exponent (NUMERIC_MAX_PRECISION). */
const MAX_EXPONENT = 1000;

/**
 * `"-001.2500"` → `"-1.25"`, `"1e3"` → `"1000"`, `"-0"` → `"0"`: plain decimal text without exponent,
 * leading or trailing zeros. Null when the text is not a finite decimal number within bounds.
 */
export function normalizeDecimal(text: string): string | null {
  if (text.length > MAX_TEXT_LENGTH) return null;
  const match = DECIMAL.exec(text);
  if (!match) return null;
  const [, sign, whole = '', fraction = '', exponentText] = match;
  if (whole.length + fraction.length === 0) return null;
  const exponent = exponentText === undefined ? 0 : Number(exponentText);
  if (Math.abs(exponent) > MAX_EXPONENT) return null;

  let digits = whole + fraction;
  let point = whole.length + exponent;
  const leading = /^0*/.exec(digits)![0].length;
  digits = digits.slice(leading);
  point -= leading;
  digits = digits.replace(/0+$/, '');
  if (digits === '') return '0';

  let plain: string;
  if (point <= 0) plain = `0.${'0'.repeat(-point)}${digits}`;
  else if (point >= digits.length) plain = digits + '0'.repeat(point - digits.length);
  else plain = `${digits.slice(0, point)}.${digits.slice(point)}`;
  const signed = sign === '-' ? `-${plain}` : plain;
  return signed.length > MAX_TEXT_LENGTH ? null : signed;
}

/** Orders two normalized decimal texts by value (-1, 0, 1). */
export function compareDecimals(a: string, b: string): number {
  const negativeA = a.startsWith('-');
  const negativeB = b.startsWith('-');
  if (negativeA !== negativeB) return negativeA ? -1 : 1;
  const magnitude = compareMagnitudes(negativeA ? a.slice(1) : a, negativeB ? b.slice(1) : b);
  return negativeA ? -magnitude : magnitude;
}

function compareMagnitudes(a: string, b: string): number {
  const [wholeA = '', fractionA = ''] = a.split('.');
  const [wholeB = '', fractionB = ''] = b.split('.');
  // Normalized: no leading zeros, so a longer whole part is a larger number ("0" only stands alone).
  if (wholeA.length !== wholeB.length) return wholeA.length < wholeB.length ? -1 : 1;
  if (wholeA !== wholeB) return wholeA < wholeB ? -1 : 1;
  // No trailing zeros either, so the fractions compare as plain text ("5" < "51" as 0.5 < 0.51).
  if (fractionA === fractionB) return 0;
  return fractionA < fractionB ? -1 : 1;
}
