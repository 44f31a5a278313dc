import { invalidPayload } from '../errors.ts';
import { hasProtoKey } from '../proto-key.ts';
import type { CollectionSchema } from '../schema/collection-schema.ts';
import { fieldOf } from '../schema/collection-schema.ts';
import type { FieldType } from '../schema/field-type.ts';
import { findTextFlaw, jsonMayHoldFlawedText, textFlaw } from '../well-formed-text.ts';
import { unknownField } from './item-payload.ts';

/**
 * A CSV header (docs/api.md §13) names fields of the collection only: an unknown name is refused as a
 * JSON row's unknown member is, and from the header itself, since a file of a header and no rows (or
 * blank lines only) has no row to refuse it on.
 */
export function requireHeaderFields(names: ReadonlyArray<string>, collection: CollectionSchema): void {
  for (const name of names) if (!fieldOf(collection, name)) throw unknownField(name, collection);
}

/**
 * A CSV row (docs/api.md §13) as the JSON item it stands for, to be read as a JSON payload is
 * (parseItemPayload): every cell is text, and each field's type says what its text means.
 * - An empty cell is null (`cells` holds null for it), whatever the field's type, as Directus reads it.
 *   A quoted empty cell (`""`, `cells` holds '') is the empty text for string, text and json fields (a
 *   JSON string), as the export writes an empty text; for any other type it is null too.
 * - json and array fields: the text is parsed as JSON (`{"a":1}`, `[1,2]`, `42`, `true`); text that is
 *   not JSON is a JSON string (`hello`), as Directus's import reads it. An array field still needs a JSON
 *   array.
 * - Every other field takes the text as a JSON payload's string: numbers, booleans (`true`, `false`, `1`,
 *   `0`), uuids, dates and times in the forms of §4, so `12` is an integer and ` 12 ` is not.
 * A column that is not a field of the collection is kept as it is, for parseItemPayload to refuse (the
 * import refuses it from the header already: requireHeaderFields).
 */
export function itemOfTextCells(
  cells: Readonly<Record<string, string | null>>,
  collection: CollectionSchema,
): Record<string, unknown> {
  const item: Record<string, unknown> = {};
  for (const name of Object.keys(cells)) {
    const cell = cells[name] ?? null;
    const field = fieldOf(collection, name);
    const text = cell === '' && field !== undefined && !HOLDS_EMPTY_TEXT.has(field.type) ? null : cell;
    const value =
      text !== null && (field?.type === 'json' || field?.type === 'array')
        ? jsonOrText(name, text)
        : wellFormed(name, text);
    // Defined, not assigned: a `__proto__` column must stay a key for parseItemPayload to refuse.
    if (name === '__proto__') {
      Object.defineProperty(item, name, { value, enumerable: true, writable: true, configurable: true });
    } else {
      item[name] = value;
    }
  }
  return item;
}

/**
 * A cell's text is a JSON row's string: a NUL (valid UTF-8, which PostgreSQL cannot store) is refused as it
 * is in a JSON row, 400 INVALID_PAYLOAD naming the field (docs/api.md §4a), not as a value of the wrong type.
 */
function wellFormed(name: string, text: string | null): string | null {
  const flaw = text === null ? null : textFlaw(text);
  if (flaw) throw invalidPayload(`The value of "${name}" contains ${flaw}.`, name);
  return text;
}

/** The field types whose value can be the empty text. */
const HOLDS_EMPTY_TEXT: ReadonlySet<FieldType> = new Set(['string', 'text', 'json']);

/**
 * JSON escapes may spell what UTF-8 text cannot hold (docs/api.md §4a), and a `__proto__` key is refused
 * as in a JSON body or a JSON row of the import.
 */
function jsonOrText(name: string, text: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return text;
  }
  if (hasProtoKey(value)) throw invalidPayload(`The value of "${name}" has a "__proto__" key.`, name);
  const flawed = jsonMayHoldFlawedText(text) ? findTextFlaw(value) : null;
  if (flawed) throw invalidPayload(`The value of "${name}" contains ${flawed.flaw}.`, name);
  return value;
}
