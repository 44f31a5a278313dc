import pino, { type Level, type Logger } from 'pino';
import { LineBatch } from './log-line-batch.ts';
import { isoTimeOncePerMillisecond } from './log-time.ts';

export type ServerLogOptions = {
  level: Level | 'silent';
  /** Where the lines go: standard output unless a test says otherwise. */
  fd?: number;
  /** The most text kept waiting for a stalled output (a pipe nobody reads); more is dropped, and counted. */
  pendingMaxBytes?: number;
};

/** The write batch (under sonic-boom's 16 KiB write size) and the longest a line waits in it. */
const BATCH_CHARS = 4096;
const FLUSH_MS = 250;
const PENDING_MAX_BYTES = 16 * 1024 * 1024;

/**
 * The server's log: pino writing asynchronously (a line per request is a write(2) per request otherwise, 6 % of
 * a list request's CPU in the bench's profile), in batches of 4 KiB or 250 ms after a batch's first line,
 * whichever comes first (a write per line still cost ~10 µs of CPU each); what is pending is written when the
 * process exits, crashes included (docs/decisions/0018, 0080).
 *
 * Bounded: an output that is not read (a full pipe, a stalled log collector) keeps at most `pendingMaxBytes`
 * waiting. Later lines are dropped rather than held until memory runs out, and once the output has caught up a
 * warning says how many were lost.
 */
export function createServerLog({
  level,
  fd = 1,
  pendingMaxBytes = PENDING_MAX_BYTES,
}: ServerLogOptions): Logger {
  const output = pino.destination({ dest: fd, sync: false, maxLength: pendingMaxBytes });
  const logger = pino(
    { level, base: undefined, timestamp: isoTimeOncePerMillisecond() },
    new LineBatch(output, { batchChars: BATCH_CHARS, flushMs: FLUSH_MS }),
  );
  let dropped = 0;
  // A dropped text is a batch of whole lines; drops are rare enough for a split.
  output.on('drop', (text: string) => {
    dropped += text.split('\n').length - 1;
  });
  output.on('drain', () => {
    if (dropped === 0) return;
    logger.warn({ dropped }, 'log lines dropped: the log output was not read while they were written');
    dropped = 0;
  });
  return logger;
}
