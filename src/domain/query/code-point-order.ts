/**
 * Orders strings by Unicode code point, which is the byte order of their UTF-8 form — PostgreSQL's
 * order under the "C" collation. JavaScript's `<` compares UTF-16 code units instead, which puts
 * characters above U+FFFF (surrogate pairs) before U+E000–U+FFFF.
 */
export function compareCodePoints(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let index = 0; index < length; index++) {
    const unitA = a.charCodeAt(index);
    const unitB = b.charCodeAt(index);
    if (unitA !== unitB) return orderOfUnit(unitA) - orderOfUnit(unitB);
  }
  return a.length - b.length;
}

/** Moves surrogates (U+D800–U+DFFF, only ever part of a code point above U+FFFF) above U+FFFF. */
function orderOfUnit(unit: number): number {
  if (unit < 0xd800) return unit;
  return unit >= 0xe000 ? unit - 0x800 : unit + 0x2000;
}
