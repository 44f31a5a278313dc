/** The names of UTF-8 a `charset` parameter may give (any case): the only charset datagate reads text in. */
export function namesUtf8(charset: string): boolean {
  const name = charset.toLowerCase();
  return name === 'utf-8' || name === 'utf8';
}
