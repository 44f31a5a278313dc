import { invalidPayload } from '../../domain/errors.ts';
import { describeTextPath, findTextFlaw, jsonMayHoldFlawedText } from '../../domain/well-formed-text.ts';

/** As for a JSON body (docs/api.md §2): no item nests deeper, and code walking one must not meet more. */
const MAX_DEPTH = 100;
/** A `"__proto__"` key, escaped or not. */
const PROTO_KEY =
  /"(?:_|\\u005[Ff])(?:_|\\u005[Ff])(?:p|\\u0070)(?:r|\\u0072)(?:o|\\u006[Ff])(?:t|\\u0074)(?:o|\\u006[Ff])(?:_|\\u005[Ff])(?:_|\\u005[Ff])"\s*:/;

/**
 * One record's JSON text → its value, held to the rules of a JSON request body (docs/api.md §2, §4a): at
 * most 100 levels deep, no `__proto__` key, no NUL or lone surrogate escaped in a key or string.
 */
export function jsonRecord(text: string): unknown {
  if (nestingDepth(text) > MAX_DEPTH)
    throw invalidPayload(`An item is nested deeper than ${MAX_DEPTH} levels.`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw invalidPayload('An item is not valid JSON.');
  }
  if (PROTO_KEY.test(text)) throw invalidPayload('An item is not valid JSON: it has a "__proto__" key.');
  const flawed = jsonMayHoldFlawedText(text) ? findTextFlaw(value) : null;
  if (flawed) {
    const field = describeTextPath(flawed.path);
    throw invalidPayload(
      `${flawed.inKey ? 'The key' : 'The value of'} "${field}" contains ${flawed.flaw}.`,
      field,
    );
  }
  return value;
}

/** The deepest nesting of `[` and `{` outside strings; malformed text is left to JSON.parse. */
function nestingDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (code === 0x5c) index++;
      else if (code === 0x22) inString = false;
    } else if (code === 0x22) inString = true;
    else if (code === 0x7b || code === 0x5b) deepest = Math.max(deepest, ++depth);
    else if (code === 0x7d || code === 0x5d) depth--;
  }
  return deepest;
}
