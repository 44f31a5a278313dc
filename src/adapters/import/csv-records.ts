import { pipeline, Readable } from 'node:stream';
import { CsvError, type Options, parse } from 'csv-parse';
import { parse as parseRecord } from 'csv-parse/sync';
import { invalidPayload } from '../../domain/errors.ts';
import { atRow } from '../../domain/items/import-row.ts';

/**
 * CSV (RFC 4180, comma-separated, `"` quoting) through csv-parse as the text arrives: the first record is
 * the header of field names, each later one a row, its cells by header name. An empty cell is null and a
 * quoted empty cell (`""`) the empty text, as the export writes them (docs/api.md §13). Records end with
 * CRLF, LF or CR, mixed or not; a line break inside quotes is the cell's text. Blank lines are skipped and
 * not counted, except after the header of a single field, where a blank line is the record of one empty
 * cell: a row whose field is null, as the export writes it. A row whose cell count differs from the
 * header's, or one longer than `maxChars`, is refused naming its row. The header is handed to
 * `checkHeader` before any row is read; its refusal is on row 1.
 */
export async function* csvRecords(
  text: AsyncIterable<string>,
  maxChars: number,
  checkHeader: (names: ReadonlyArray<string>) => void,
): AsyncIterable<Readonly<Record<string, string | null>>> {
  // No `cast`: csv-parse then builds a context object per cell, which made it 15 times slower (0035).
  // `raw` keeps each record's text, which csv-parse reads again, with `cast`, for the few rows that
  // may hold a quoted empty cell. Rows are counted, blank lines skipped and cell counts compared in
  // `onRecord`, as csv-parse parses: it reads ahead of the rows handed out, so a refusal it meets is on
  // the row after the last one counted there.
  let width: number | null = null;
  let parsed = 0;
  const onRecord = (record: RawRecord): RawRecord | null => {
    const blank = isBlankLine(record);
    if (width === null) {
      if (blank) return null;
      width = record.record.length;
      return record;
    }
    if (blank && width > 1) return null;
    parsed++;
    if (record.record.length !== width) {
      throw atRow(invalidPayload('The row does not have as many cells as the header has fields.'), parsed);
    }
    return record;
  };
  const parser = parse({
    max_record_size: maxChars,
    raw: true,
    record_delimiter: RECORD_DELIMITERS,
    // Its own count check would refuse a blank line of a file of several fields, which is skipped instead.
    relax_column_count: true,
    // With `raw`, csv-parse hands each record to `on_record` with its text, which its types do not say.
    on_record: onRecord as unknown as Options['on_record'],
  });
  // pipeline, not pipe: a failure of the text (a limit, invalid UTF-8) must reach the parser's reader, and
  // a reader that stops early must stop the text.
  pipeline(Readable.from(text), parser, () => {});
  let header: string[] | null = null;
  let row = 0;
  try {
    for await (const { record: cells, raw } of parser as AsyncIterable<RawRecord>) {
      if (header === null) {
        header = headerOf(cells);
        checkHeader(header);
        continue;
      }
      row++;
      const quoted = quotedCellsOf(cells, raw);
      const item: Record<string, string | null> = {};
      for (let index = 0; index < cells.length; index++) {
        const cell = cells[index]!;
        item[header[index]!] = cell === '' && quoted?.[index] !== true ? null : cell;
      }
      yield item;
    }
  } catch (error) {
    throw error instanceof CsvError ? atRow(csvRefusal(error, maxChars), parsed + 1) : atRow(error, row + 1);
  }
  if (header === null) throw invalidPayload('The CSV file has no header row naming the fields.');
}

/**
 * Records end with CRLF, LF or CR, each on its own: csv-parse would otherwise take the first one it meets
 * for the whole file, and in a file that mixes them (one edited on two systems) keep a CR as the last
 * cell's text or refuse the rows as ragged.
 */
const RECORD_DELIMITERS = ['\r\n', '\n', '\r'];

type RawRecord = { readonly record: string[]; readonly raw: string };

/** A line of nothing but its end: one empty cell that no quote made (`""` is the empty text). */
function isBlankLine({ record, raw }: RawRecord): boolean {
  return record.length === 1 && record[0] === '' && !raw.includes('"');
}

/**
 * Which cells of the record were quoted, when an empty one may have been: csv-parse tells quoting only
 * to `cast`, so the record's own text is parsed again with it. Only a record with an empty cell and a
 * `""` in its text can hold a quoted empty cell; every other record (nearly all) is not parsed twice.
 */
function quotedCellsOf(cells: ReadonlyArray<string>, raw: string): ReadonlyArray<unknown> | null {
  if (!cells.includes('') || !raw.includes('""')) return null;
  // Typed as text cells, but `cast` makes each one whether the cell was quoted.
  const [quoted]: ReadonlyArray<ReadonlyArray<unknown>> = parseRecord(raw, {
    record_delimiter: RECORD_DELIMITERS,
    cast: (_value, context) => context.quoting,
  });
  return quoted ?? null;
}

function headerOf(cells: ReadonlyArray<string>): string[] {
  const names = [...cells];
  const seen = new Set<string>();
  for (const name of names) {
    // Cells are assigned by name below, where this one would set the object's prototype; no field has it.
    if (name === '__proto__') throw invalidPayload('Unknown field "__proto__".', name);
    if (seen.has(name)) throw invalidPayload(`The CSV header names "${name}" twice.`, name);
    seen.add(name);
  }
  return names;
}

/** csv-parse's own words quote the data around the fault; these say what is wrong in the contract's terms. */
function csvRefusal(error: CsvError, maxChars: number): unknown {
  switch (error.code) {
    case 'CSV_MAX_RECORD_SIZE':
      return invalidPayload(`The row is longer than ${maxChars} characters.`);
    default:
      return invalidPayload('The file is not valid CSV (a quote is not closed or is misplaced).');
  }
}
