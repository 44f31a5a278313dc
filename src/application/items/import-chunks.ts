import { DomainError } from '../../domain/errors.ts';
import { atRow } from '../../domain/items/import-row.ts';

/** Consecutive records of an import; `first` is the 1-based data row of `records[0]`. */
export type ImportChunk<T> = { readonly first: number; readonly records: ReadonlyArray<T> };

/**
 * The records in chunks of `size`, the last one shorter. Row `maxRows + 1` is refused (400
 * INVALID_PAYLOAD, `reason: MAX_ROWS`) as soon as it is read, before its chunk is handed out.
 */
export async function* importChunks<T>(
  records: AsyncIterable<T>,
  size: number,
  maxRows: number,
): AsyncIterable<ImportChunk<T>> {
  let chunk: T[] = [];
  let first = 1;
  for await (const record of records) {
    const row = first + chunk.length;
    if (row > maxRows) {
      throw atRow(
        new DomainError('INVALID_PAYLOAD', `An import may hold at most ${maxRows} rows.`, {
          reason: 'MAX_ROWS',
        }),
        row,
      );
    }
    chunk.push(record);
    if (chunk.length === size) {
      yield { first, records: chunk };
      first += chunk.length;
      chunk = [];
    }
  }
  if (chunk.length > 0) yield { first, records: chunk };
}
