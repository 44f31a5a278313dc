import { invalidPayload } from '../../domain/errors.ts';
import { findTextFlaw, flawedTextError, jsonMayHoldFlawedText } from '../../domain/well-formed-text.ts';
import { MAX_JSON_DEPTH, nestingDepth, PROTO_KEY } from '../json-text-checks.ts';

/**
 * One record's JSON text → its value, held to the rules of a JSON request body (docs/api.md §2, §4a): at
 * most 100 levels deep, no `__proto__` key, no NUL or lone surrogate escaped in a key or string.
 */
export function jsonRecord(text: string): unknown {
  if (nestingDepth(text) > MAX_JSON_DEPTH)
    throw invalidPayload(`An item is nested deeper than ${MAX_JSON_DEPTH} levels.`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw invalidPayload('An item is not valid JSON.');
  }
  if (PROTO_KEY.test(text)) throw invalidPayload('An item is not valid JSON: it has a "__proto__" key.');
  const flawed = jsonMayHoldFlawedText(text) ? findTextFlaw(value) : null;
  if (flawed) throw flawedTextError(flawed);
  return value;
}
