import { normalizeDecimal } from '../../../domain/query/decimal-text.ts';
import type { ScalarValue } from '../../../domain/query/filter.ts';
import { valueJson } from '../../../domain/query/value-json.ts';
import { elementField, type FieldSchema } from '../../../domain/schema/collection-schema.ts';

/**
 * A stored value as the SQL store's answer spells it, byte for byte: docs/api.md §4's form (valueJson),
 * with PostgreSQL's own layout where PostgreSQL writes the text — a jsonb value as `jsonb_out` prints it
 * (`{"a": [1, 2]}`, numbers as plain decimals), and an array column as `json_agg` joins its elements
 * (`[1, 2]`). Every other value is the same text either way.
 */
export function wireJson(field: FieldSchema, value: ScalarValue | null): string {
  if (value === null) return 'null';
  if (field.type === 'json') return jsonbText(String(value));
  if (field.type === 'array') {
    const element = elementField(field);
    const elements = JSON.parse(String(value)) as Array<ScalarValue | null>;
    return `[${elements.map((item) => wireJson(element, item)).join(', ')}]`;
  }
  return valueJson(field, value);
}

const NUMBER_START = /[-0-9]/;
const NUMBER_PART = /[-+0-9.eE]/;

/**
 * Compact canonical JSON text (canonicalJson's: no whitespace) as `jsonb_out` prints the same value: a
 * space after each `,` and `:` between tokens, and numbers in numeric's plain notation (`1e-7` →
 * `0.0000001`), since jsonb keeps them as numeric. Strings are escaped alike by both already.
 */
export function jsonbText(canonical: string): string {
  let text = '';
  let index = 0;
  while (index < canonical.length) {
    const char = canonical[index]!;
    if (char === '"') {
      const end = stringEnd(canonical, index);
      text += canonical.slice(index, end);
      index = end;
    } else if (NUMBER_START.test(char)) {
      let end = index + 1;
      while (end < canonical.length && NUMBER_PART.test(canonical[end]!)) end++;
      const number = canonical.slice(index, end);
      text += /[eE]/.test(number) ? (normalizeDecimal(number) ?? number) : number;
      index = end;
    } else {
      text += char === ',' || char === ':' ? `${char} ` : char;
      index++;
    }
  }
  return text;
}

/** The index just past the string literal opening at `start`. */
function stringEnd(text: string, start: number): number {
  let index = start + 1;
  while (index < text.length && text[index] !== '"') index += text[index] === '\\' ? 2 : 1;
  return index + 1;
}
