/**
 * A child process for tests/adapters/server-log.test.ts: logs `count` lines of ~250 bytes through the server's
 * log, bounded to 256 KiB pending, then says `logged` on stderr; its parent reads stdout only after that.
 */
import { createServerLog } from '../../src/adapters/server-log.ts';

const count = Number(process.argv[2]);
const logger = createServerLog({ level: 'info', pendingMaxBytes: 256 * 1024 });
const padding = 'x'.repeat(200);
for (let line = 1; line <= count; line++) {
  logger.info({ line, padding }, 'logged');
  if (line % 100 === 0) await new Promise(setImmediate);
}
process.stderr.write('logged\n');
