import { invalidPayload } from '../../domain/errors.ts';
import { atRow } from '../../domain/items/import-row.ts';
import { jsonRecord } from './json-record.ts';

/**
 * NDJSON (one JSON object per line, `\n` or `\r\n`), line by line as the text arrives; blank lines are
 * skipped and not counted as rows. A line longer than `maxChars` is refused as soon as it is, without
 * waiting for its end.
 */
export async function* ndjsonRecords(text: AsyncIterable<string>, maxChars: number): AsyncIterable<unknown> {
  let row = 0;
  let pending = '';
  const record = (line: string): unknown => {
    row++;
    try {
      return jsonRecord(line);
    } catch (error) {
      throw atRow(error, row);
    }
  };
  for await (const chunk of text) {
    let start = 0;
    for (let end = chunk.indexOf('\n'); end !== -1; end = chunk.indexOf('\n', start)) {
      const line = (pending + chunk.slice(start, end)).replace(/\r$/, '');
      pending = '';
      start = end + 1;
      if (line.length > maxChars) throw tooLong(row + 1, maxChars);
      if (line.trim() !== '') yield record(line);
    }
    pending += chunk.slice(start);
    if (pending.length > maxChars) throw tooLong(row + 1, maxChars);
  }
  if (pending.trim() !== '') yield record(pending);
}

function tooLong(row: number, maxChars: number): unknown {
  return atRow(invalidPayload(`An item is longer than ${maxChars} characters.`), row);
}
