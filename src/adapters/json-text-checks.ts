/**
 * The checks a JSON text from a client passes besides JSON.parse, shared by request bodies
 * (http/json-body.ts) and imported records (import/json-record.ts), which word their refusals apiece.
 */

/**
 * No payload of this API nests deeper (json values stop at 64 levels, filters at 10 `_and`/`_or` levels),
 * and code that walks a value recursively must not meet a million levels.
 */
export const MAX_JSON_DEPTH = 100;

/** A `"__proto__"` key, escaped or not (as @hapi/bourne, which koa-bodyparser used, tests for). */
export const PROTO_KEY =
  /"(?:_|\\u005[Ff])(?:_|\\u005[Ff])(?:p|\\u0070)(?:r|\\u0072)(?:o|\\u006[Ff])(?:t|\\u0074)(?:o|\\u006[Ff])(?:_|\\u005[Ff])(?:_|\\u005[Ff])"\s*:/;

/** The deepest nesting of `[` and `{` outside strings; malformed text is left to JSON.parse. */
export function nestingDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (inString) {
      // A backslash escapes the next character, so `\"` does not end the string.
      if (code === 0x5c) index++;
      else if (code === 0x22) inString = false;
    } else if (code === 0x22) inString = true;
    else if (code === 0x7b || code === 0x5b) deepest = Math.max(deepest, ++depth);
    else if (code === 0x7d || code === 0x5d) depth--;
  }
  return deepest;
}
