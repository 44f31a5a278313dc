const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;

/*
 * Cutting the JSON text the item store answers into its items and their values, as written, without
 * parsing: an export passes on the store's text (docs/api.md §4 value formats) rather than a parsed and
 * re-printed copy, which would change numbers (`1e21`) and jsonb's spacing. The texts are the store's
 * own, so they are valid JSON; nothing here checks it.
 */

/** The elements of a JSON array text, each as written: `[1,{"a":[2,3]},"x,y"]` → `1`, `{"a":[2,3]}`, `"x,y"`. */
export function arrayElements(text: string): string[] {
  return topLevelParts(text);
}

/** The member values of a JSON object text in order, each as written: `{"a":1,"b":[2]}` → `1`, `[2]`. */
export function objectValues(text: string): string[] {
  return topLevelParts(text).map(memberValue);
}

/** The texts between the commas of the outermost array or object, trimmed; none for `[]` or `{}`. */
function topLevelParts(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (code === BACKSLASH) index++;
      else if (code === QUOTE) inString = false;
      continue;
    }
    if (code === QUOTE) inString = true;
    else if (code === OPEN_ARRAY || code === OPEN_OBJECT) {
      depth++;
      if (depth === 1) start = index + 1;
    } else if (code === CLOSE_ARRAY || code === CLOSE_OBJECT) {
      depth--;
      if (depth === 0) {
        const last = text.slice(start, index).trim();
        if (last !== '' || parts.length > 0) parts.push(last);
        return parts;
      }
    } else if (code === COMMA && depth === 1) {
      parts.push(text.slice(start, index).trim());
      start = index + 1;
    }
  }
  return parts;
}

/** `"key":value` → `value`: past the key's string and the colon. */
function memberValue(member: string): string {
  let index = 1;
  while (member.charCodeAt(index) !== QUOTE) index += member.charCodeAt(index) === BACKSLASH ? 2 : 1;
  const colon = member.indexOf(String.fromCharCode(COLON), index + 1);
  return member.slice(colon + 1).trim();
}
