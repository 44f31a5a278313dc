/**
 * PostgreSQL's identifier length (NAMEDATALEN − 1), in UTF-8 bytes: a longer name — of a table, a column,
 * a constraint, or a column alias that becomes an answer's key — is cut to it without an error, so two
 * names that share their first 63 bytes become one.
 */
export const MAX_IDENTIFIER_BYTES = 63;

const utf8 = new TextEncoder();

export function utf8Bytes(text: string): number {
  return utf8.encode(text).length;
}

/** Whether PostgreSQL keeps `name` whole. */
export function fitsIdentifier(name: string): boolean {
  return utf8Bytes(name) <= MAX_IDENTIFIER_BYTES;
}

/** The longest start of `text` of at most `bytes` UTF-8 bytes that does not split a character. */
export function utf8Prefix(text: string, bytes: number): string {
  let prefix = '';
  let used = 0;
  for (const character of text) {
    used += utf8Bytes(character);
    if (used > bytes) break;
    prefix += character;
  }
  return prefix;
}
