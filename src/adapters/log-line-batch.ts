import { register } from 'on-exit-leak-free';

/** Where a batch goes: pino's destination (sonic-boom), writing each string it is given at once. */
export type LineOutput = {
  write(text: string): unknown;
  flush(done?: (error?: Error) => unknown): void;
  flushSync(): void;
};

export type LineBatchOptions = {
  /** A batch is written once it holds this many characters… */
  batchChars: number;
  /** …or this long after its first line, whichever comes first. */
  flushMs: number;
};

/**
 * The log's lines gathered into batches in front of pino's destination: one `write` per batch where sonic-boom,
 * batching itself, measures its whole pending text (`Buffer.byteLength` of a growing concatenation) for every
 * line it adds — ~15 thousand instructions a line at a batch of 4 KiB (bench/NOTES.md §7.9). What is pending
 * is written synchronously when the process exits, crashes included, as pino does for its own destination.
 */
export class LineBatch {
  private lines: string[] = [];
  private chars = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly output: LineOutput,
    private readonly options: LineBatchOptions,
  ) {
    // Held weakly: a batch nobody logs to any more (a test's app) is collected with its registration.
    register(this, (batch) => batch.flushSync());
  }

  write(line: string): boolean {
    this.lines.push(line);
    this.chars += line.length;
    if (this.chars >= this.options.batchChars) this.writeBatch();
    else if (this.timer === undefined) {
      this.timer = setTimeout(() => this.writeBatch(), this.options.flushMs);
      this.timer.unref();
    }
    return true;
  }

  /** What pino's `logger.flush()` calls. */
  flush(done?: (error?: Error) => unknown): void {
    this.writeBatch();
    this.output.flush(done);
  }

  flushSync(): void {
    this.writeBatch();
    this.output.flushSync();
  }

  private writeBatch(): void {
    if (this.timer !== undefined) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    if (this.lines.length === 0) return;
    const text = this.lines.length === 1 ? this.lines[0]! : this.lines.join('');
    this.lines = [];
    this.chars = 0;
    this.output.write(text);
  }
}
