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
  const encoder = exportEncoder(itemExport.format, itemExport.fields, {
    jsonFields: itemExport.jsonFields,
    escapeFormulas: itemExport.escapeFormulas,
  });
  // A response learns that its client left from the 'close' event only: `destroyed` stays false.
  let closed = out.destroyed;
  const onClose = () => {
    closed = true;
  };
  out.once('close', onClose);
  const write = async (text: string) => !closed && (text === '' || out.write(text) || (await drained(out)));
  let rows = 0;
  try {
    if (!(await write(encoder.head))) return rows;
    for await (const json of itemExport.pages) {
      const page = encoder.page(json);
      if (!(await write(page.text))) return rows;
      rows += page.rows;
      progress?.(rows);
    }
    await write(encoder.tail);
    return rows;
  } finally {
    out.off('close', onClose);
  }
}

/**
 * True once `out` has drained, false when it closes first. A write's failure (EPIPE: the reader of stdout
 * went away) is `out`'s owner's to report, from its 'error' event: here it only means `out` is gone, not
 * that the export failed.
 */
async function drained(out: Writable): Promise<boolean> {
  const settled = new AbortController();
  const ready = once(out, 'drain', { signal: settled.signal }).then(
    () => true,
    () => false,
  );
  const gone = once(out, 'close', { signal: settled.signal }).then(() => false);
  try {
    return await Promise.race([ready, gone]);
  } finally {
    settled.abort();
    ready.catch(() => {});
    gone.catch(() => {});
  }
}
