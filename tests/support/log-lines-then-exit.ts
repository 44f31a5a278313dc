/**
 * A child process for tests/adapters/log-line-batch.test.ts: logs `count` lines through the server's batch
 * in front of pino's asynchronous destination on stdout, then ends as `how` says, before any batch is due.
 */
import pino from 'pino';
import { LineBatch } from '../../src/adapters/log-line-batch.ts';

const [count, how] = [Number(process.argv[2]), process.argv[3]];
const logger = pino(
  { base: undefined },
  new LineBatch(pino.destination({ dest: 1, sync: false }), { batchChars: 1 << 20, flushMs: 60_000 }),
);
for (let line = 1; line <= count; line++) logger.info({ line }, 'logged');
if (how === 'throw') throw new Error('crashed with lines pending');
if (how === 'exit') process.exit(3);
