/**
 * Text in lower case as PostgreSQL's `ILIKE` and `lower()` make it on a libc collation: each code point by
 * its own lower case (`towlower`). `String.prototype.toLowerCase` differs in two ways, both of which would
 * make a rule hold for other rows in process (writes, the in-memory store) than in SQL: it lowers a
 * word-final `Σ` to `ς` (PostgreSQL: `σ`, so `"ΑΣ"` contains `σ`), and `İ` to two code points, `i` and a
 * combining dot (PostgreSQL: `i`).
 */
export function lowerCaseByCodePoint(text: string): string {
  // Printable ASCII has neither special case; the loop below is for the rest.
  if (!BEYOND_PRINTABLE_ASCII.test(text)) return text.toLowerCase();
  let lowered = '';
  for (const character of text) {
    lowered += String.fromCodePoint(character.toLowerCase().codePointAt(0)!);
  }
  return lowered;
}

const BEYOND_PRINTABLE_ASCII = /[^\x20-\x7e\t\n\r]/;
