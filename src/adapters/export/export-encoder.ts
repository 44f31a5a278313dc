import { type Options, stringify } from 'csv-stringify/sync';
import type { ExportFormat } from '../../application/items/export-items.ts';
import { arrayElements, objectValues } from './json-text-parts.ts';

/** An export's file, written page by page: `head`, then each page's text, then `tail`. */
export type ExportEncoder = {
  readonly head: string;
  /** A page (the JSON array text of its items) as the file's text, and how many items it held. */
  page(json: string): { text: string; rows: number };
  readonly tail: string;
};

/**
 * RFC 4180: CRLF between records; a field quoted when it holds a comma, a quote (doubled), CR or LF.
 * An empty string is quoted (`""`) and a null is not (an empty field), so that the two stay apart.
 */
const CSV_OPTIONS: Options = { record_delimiter: '\r\n', quoted_match: [/^$/, /[\r\n]/] };

/** How a CSV writes its cells (the other formats are JSON text, written as the API writes it). */
export type CsvCellOptions = {
  /** The fields holding JSON values of their own (a json field), whose strings are written apart (csvField). */
  readonly jsonFields?: ReadonlySet<string>;
  /** A text a spreadsheet would run as a formula is written with a leading `'` (spreadsheetSafe). */
  readonly escapeFormulas?: boolean;
};

/** The file of `format` (docs/api.md §13, Export): `fields` are the items' keys, in order. */
export function exportEncoder(
  format: ExportFormat,
  fields: ReadonlyArray<string>,
  cells: CsvCellOptions = {},
): ExportEncoder {
  if (format === 'csv') return csvEncoder(fields, cells);
  if (format === 'ndjson') {
    return {
      head: '',
      page(json) {
        const items = arrayElements(json);
        return { text: `${items.join('\n')}\n`, rows: items.length };
      },
      tail: '',
    };
  }
  // One JSON array, as a list's `data` would be were it answered whole (Directus's export=json).
  let first = true;
  return {
    head: '[',
    page(json) {
      const rows = arrayElements(json).length;
      const text = first ? json.slice(1, -1) : `,${json.slice(1, -1)}`;
      first = false;
      return { text, rows };
    },
    tail: ']',
  };
}

/**
 * A header of the fields, then a record per item: each value as the item API writes it, strings
 * unquoted to their text, null as an empty field, numbers and booleans as written, and a nested object
 * or array (a related item, a json value) as its JSON text.
 */
function csvEncoder(fields: ReadonlyArray<string>, cells: CsvCellOptions): ExportEncoder {
  const jsonFields = cells.jsonFields ?? new Set();
  const holdsJson = fields.map((field) => jsonFields.has(field));
  const cell = cells.escapeFormulas
    ? (value: string, index: number) => spreadsheetSafe(csvField(value, holdsJson[index] === true))
    : (value: string, index: number) => csvField(value, holdsJson[index] === true);
  // A column of a table made by hand may have any name, `=cmd` too: for a spreadsheet it is a cell as any.
  const header = cells.escapeFormulas ? fields.map(spreadsheetSafe) : fields;
  return {
    head: stringify([header], CSV_OPTIONS),
    page(json) {
      const records = arrayElements(json).map((item) => objectValues(item).map(cell));
      return { text: stringify(records, CSV_OPTIONS), rows: records.length };
    },
    tail: '',
  };
}

/**
 * One value's CSV text. A string is its bare text, except in a json field when that text is itself JSON
 * (`42`, `true`, `{"a":1}`, `"x"`): the import reads such a cell as the JSON it spells, so the string is
 * written as its JSON text (`"42"`) to come back a string. A json field's other strings stay bare, as
 * Directus writes and reads them (docs/decisions/0069).
 */
function csvField(value: string, holdsJson: boolean): string | null {
  if (value === 'null') return null;
  if (!value.startsWith('"')) return value;
  const text = JSON.parse(value) as string;
  return holdsJson && readsAsJson(text) ? value : text;
}

function readsAsJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * OWASP's "CSV injection": a spreadsheet runs a cell starting with `=`, `+`, `-` or `@` as a formula (and
 * one starting with a tab or CR may be trimmed to one), so such a cell gets a leading `'`, which makes it
 * text. A number (`-5`, `+1.5e3`, a decimal's digits) is no formula and stays a number. Only what the item
 * API writes as a string reaches here as one: numbers and booleans are JSON text, nested JSON starts with
 * `{`, `[` or `"`.
 */
function spreadsheetSafe(text: string | null): string | null {
  if (text === null || !FORMULA_START.test(text) || PLAIN_NUMBER.test(text)) return text;
  return `'${text}`;
}

const FORMULA_START = /^[=+\-@\t\r]/;
const PLAIN_NUMBER = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
