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
