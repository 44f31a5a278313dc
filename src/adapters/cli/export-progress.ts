import { counted } from './counted.ts';

/** How often a progress line is written where the output is not a terminal (a log file, CI). */
const PLAIN_EVERY_MS = 10_000;
/** How often the terminal's line is redrawn. */
const DRAW_EVERY_MS = 200;

/**
 * The rows an export has written and its rate, on stderr (stdout is the file): one line redrawn in place on
 * a terminal, a plain line every 10 s elsewhere, and a summary line at the end either way. The total is not
 * known beforehand (counting it would cost a second read of the rows), so there is no bar.
 */
export function exportProgress(label: string, stream: NodeJS.WriteStream = process.stderr) {
  const started = Date.now();
  let lastShown = started;
  const line = (rows: number, now: number) => {
    const seconds = Math.max((now - started) / 1000, 0.001);
    return `${label}: ${counted(rows, 'row')}, ${Math.round(rows / seconds).toLocaleString('en')} rows/s`;
  };
  return {
    update(rows: number) {
      const now = Date.now();
      if (now - lastShown < (stream.isTTY ? DRAW_EVERY_MS : PLAIN_EVERY_MS)) return;
      lastShown = now;
      stream.write(stream.isTTY ? `\r\x1b[2K${line(rows, now)}` : `${line(rows, now)}\n`);
    },
    finish(rows: number) {
      const now = Date.now();
      const seconds = ((now - started) / 1000).toFixed(1);
      stream.write(`${stream.isTTY ? '\r\x1b[2K' : ''}${line(rows, now)}, done in ${seconds} s\n`);
    },
  };
}
