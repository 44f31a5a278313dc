import { once } from 'node:events';
import type { Writable } from 'node:stream';
import type { ItemExport } from '../../application/items/export-items.ts';
import { exportEncoder } from './export-encoder.ts';

/**
 * Writes an export's file to `out` (a response, stdout) page by page, waiting for `out` to drain after
 * each page it could not take at once: at most one page is held here, however slow the reader. Stops
 * reading, without error, once `out` is closed (a client gone). Resolves with the items written, and
 * passes on a page's failure with the file unfinished: the caller must then cut `out` off, never end it
 * as if whole. `progress` hears the items written so far.
 */
export async function writeExport(
  itemExport: ItemExport,
  out: Writable,
  progress?: (rows: number) => void,
): Promise<number> {
  const encoder = exportEncoder(itemExport.format, itemExport.fields);
  let rows = 0;
  if (!(await write(out, encoder.head))) return rows;
  for await (const json of itemExport.pages) {
    const page = encoder.page(json);
    if (!(await write(out, page.text))) return rows;
    rows += page.rows;
    progress?.(rows);
  }
  await write(out, encoder.tail);
  return rows;
}

/** False when `out` is closed (before or while waiting for it to drain). */
async function write(out: Writable, text: string): Promise<boolean> {
  if (out.destroyed) return false;
  if (text === '' || out.write(text)) return true;
  const closed = new AbortController();
  const drained = once(out, 'drain', { signal: closed.signal }).then(() => true);
  const gone = once(out, 'close', { signal: closed.signal }).then(() => false);
  try {
    return await Promise.race([drained, gone]);
  } finally {
    closed.abort();
    drained.catch(() => {});
    gone.catch(() => {});
  }
}
