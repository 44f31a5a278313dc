import { counted } from './counted.ts';

const WIDTH = 30;

/**
 * A one-line progress bar on a terminal; elsewhere (CI logs, pipes) only the final line, so logs are not
 * flooded with carriage returns.
 */
export function progressBar(label: string, stream: NodeJS.WriteStream = process.stderr) {
  const started = Date.now();
  let lastDrawn = -1;
  return {
    update(done: number, total: number) {
      if (!stream.isTTY) return;
      const ratio = total === 0 ? 1 : done / total;
      const percent = Math.floor(ratio * 100);
      if (percent === lastDrawn && done !== total) return;
      lastDrawn = percent;
      const filled = Math.round(ratio * WIDTH);
      const bar = `${'█'.repeat(filled)}${'░'.repeat(WIDTH - filled)}`;
      stream.write(
        `\r${label} ${bar} ${String(percent).padStart(3)}% ${done.toLocaleString('en')}/${total.toLocaleString('en')}`,
      );
    },
    finish(summary: string) {
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      stream.write(`${stream.isTTY ? '\r\x1b[2K' : ''}${label} ${summary} in ${seconds} s\n`);
    },
  };
}

/** Seconds as `1m05s` or `42s`. */
function duration(seconds: number): string {
  if (!Number.isFinite(seconds)) return '?';
  const whole = Math.max(0, Math.round(seconds));
  return whole >= 60 ? `${Math.floor(whole / 60)}m${String(whole % 60).padStart(2, '0')}s` : `${whole}s`;
}

/**
 * An import's progress, from the rows written and the bytes of the file read so far: on a terminal a bar
 * (by bytes) with rows, rate and time left, redrawn at most ten times a second; elsewhere a plain line
 * every `everyMs`, so that a log shows the import moving without filling up.
 */
export function importProgress(
  label: string,
  totalBytes: number,
  stream: NodeJS.WriteStream = process.stderr,
  everyMs = 5000,
) {
  const started = Date.now();
  let lastWritten = 0;
  return {
    update({ rows, bytes }: { rows: number; bytes: number }) {
      const now = Date.now();
      if (now - lastWritten < (stream.isTTY ? 100 : everyMs)) return;
      lastWritten = now;
      const seconds = (now - started) / 1000;
      const ratio = totalBytes === 0 ? 1 : Math.min(1, bytes / totalBytes);
      const left = ratio === 0 ? Number.NaN : (seconds * (1 - ratio)) / ratio;
      const rate = Math.round(rows / Math.max(seconds, 0.001));
      const text = `${counted(rows, 'row')}, ${rate.toLocaleString('en')} rows/s, ${Math.floor(ratio * 100)}% read, ${duration(left)} left`;
      if (!stream.isTTY) {
        stream.write(`${label} ${text}\n`);
        return;
      }
      const filled = Math.round(ratio * WIDTH);
      stream.write(`\r\x1b[2K${label} ${'█'.repeat(filled)}${'░'.repeat(WIDTH - filled)} ${text}`);
    },
    finish(summary: string) {
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      stream.write(`${stream.isTTY ? '\r\x1b[2K' : ''}${label} ${summary} in ${seconds} s\n`);
    },
  };
}
