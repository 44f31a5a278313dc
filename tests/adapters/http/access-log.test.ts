import pino, { type Logger } from 'pino';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { accessLogOf, type LoggedRequest } from '../../../src/adapters/http/access-log.ts';
import { isoTimeOncePerMillisecond } from '../../../src/adapters/log-time.ts';

/** A logger as the server builds it (container.ts), writing into `lines`. */
function recordingLogger(lines: string[], options: pino.LoggerOptions = {}): Logger {
  return pino(
    {
      level: 'info',
      base: undefined,
      timestamp: isoTimeOncePerMillisecond(() => 1_764_306_000_123),
      ...options,
    },
    { write: (line: string) => void lines.push(line) },
  );
}

const REQUESTS: Array<[LoggedRequest, number]> = [
  [
    {
      state: { requestId: '3f8a2a4e-1c2b-4d5e-9f00-123456789abc' },
      method: 'GET',
      path: '/items/cargos',
      status: 200,
    },
    1.26,
  ],
  [
    { state: { requestId: 'r"\\1' }, method: 'DELETE', path: '/items/a"b\\c/%22\u0001é😀', status: 404 },
    0.04,
  ],
  [
    { state: { requestId: 'x'.repeat(120) }, method: 'POST', path: `/${'p'.repeat(150)}`, status: 503 },
    12_345.678,
  ],
];

/** What the line said before it was built by hand: pino's own `info`. */
function pinoLine(logger: Logger, request: LoggedRequest, ms: number) {
  const { requestId } = request.state;
  const { method, path, status } = request;
  logger.info({ requestId, method, path, status, ms: Math.round(ms * 10) / 10 }, 'request');
}

test("writes the line pino's own info writes, on the server's logger and on a worker's child", () => {
  for (const make of [
    (lines: string[]) => recordingLogger(lines),
    (lines: string[]) => recordingLogger(lines).child({ worker: 2, pid: 4242 }),
    (lines: string[]) => recordingLogger(lines, { messageKey: 'message', crlf: true }),
  ]) {
    const expected: string[] = [];
    const written: string[] = [];
    const reference = make(expected);
    const logAccess = accessLogOf(make(written));
    for (const [request, ms] of REQUESTS) {
      pinoLine(reference, request, ms);
      logAccess(request, ms);
    }
    assert.equal(written, expected);
    for (const line of written) assert.type(JSON.parse(line), 'object');
  }
});

test("follows the logger's level, also when it changes while serving", () => {
  const lines: string[] = [];
  const logger = recordingLogger(lines, { level: 'warn' });
  const logAccess = accessLogOf(logger);
  logAccess(...REQUESTS[0]!);
  assert.equal(lines, []);
  logger.level = 'debug';
  logAccess(...REQUESTS[0]!);
  assert.is(lines.length, 1);
});

test('a logger that rewrites its lines (a mixin) writes them itself', () => {
  const expected: string[] = [];
  const written: string[] = [];
  const mixin = () => ({ region: 'eu' });
  pinoLine(recordingLogger(expected, { mixin }), ...REQUESTS[0]!);
  accessLogOf(recordingLogger(written, { mixin }))(...REQUESTS[0]!);
  assert.equal(written, expected);
  assert.match(written[0]!, /"region":"eu"/);
});

test.run();
