/**
 * A child process for tests/adapters/log-line-batch.test.ts: logs `count` short lines through the server's log
 * (fewer than a batch holds), then ends as `how` says, before the batch is due.
 */
import { createServerLog } from '../../src/adapters/server-log.ts';

const [count, how] = [Number(process.argv[2]), process.argv[3]];
const logger = createServerLog({ level: 'info' });
for (let line = 1; line <= count; line++) logger.info({ line }, 'logged');
if (how === 'throw') throw new Error('crashed with lines pending');
if (how === 'exit') process.exit(3);
