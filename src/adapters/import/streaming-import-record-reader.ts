import type {
  ImportFormat,
  ImportRecord,
  ImportRecordReader,
} from '../../application/ports/import-records.ts';
import { csvRecords } from './csv-records.ts';
import { jsonArrayRecords } from './json-array-records.ts';
import { ndjsonRecords } from './ndjson-records.ts';

/** ImportRecordReader for CSV (csv-parse), JSON arrays and NDJSON, each streamed (docs/api.md §13). */
export class StreamingImportRecordReader implements ImportRecordReader {
  async *records(
    text: AsyncIterable<string>,
    format: ImportFormat,
    maxRecordChars: number,
    checkHeader: (names: ReadonlyArray<string>) => void,
  ): AsyncIterable<ImportRecord> {
    if (format === 'csv') {
      for await (const cells of csvRecords(text, maxRecordChars, checkHeader)) yield { kind: 'text', cells };
      return;
    }
    const values =
      format === 'json' ? jsonArrayRecords(text, maxRecordChars) : ndjsonRecords(text, maxRecordChars);
    for await (const value of values) yield { kind: 'json', value };
  }
}
