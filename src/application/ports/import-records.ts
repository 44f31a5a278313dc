/** The file formats an import reads (docs/api.md §13). */
export type ImportFormat = 'csv' | 'json' | 'ndjson';

/**
 * One record of an import file, in file order: a JSON value (an element of a JSON array, a line of NDJSON),
 * or a CSV row as its cells by header name — each cell's text, null for an empty unquoted cell.
 */
export type ImportRecord =
  | { readonly kind: 'json'; readonly value: unknown }
  | { readonly kind: 'text'; readonly cells: Readonly<Record<string, string | null>> };

/**
 * Parses an import file as its text arrives, one record at a time: it reads no further ahead than the
 * record it hands out (and its parser's small buffer), so a slow consumer slows the reading. A record
 * longer than `maxRecordChars`, or text that is not valid in the format, is INVALID_PAYLOAD naming the
 * 1-based data row (atRow).
 *
 * `checkHeader` is given a CSV file's header, once, before any row is read: what it throws is the file's
 * refusal on row 1, so that a header naming no field of the collection is refused even when no row
 * follows it.
 */
export interface ImportRecordReader {
  records(
    text: AsyncIterable<string>,
    format: ImportFormat,
    maxRecordChars: number,
    checkHeader: (names: ReadonlyArray<string>) => void,
  ): AsyncIterable<ImportRecord>;
}
