import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { postgresSkip } from '../support/postgres-server.ts';
import { skippableSuite } from '../support/skippable-suite.ts';
import { freshGet } from './fresh-get.ts';
import { type Served, serve } from './serve-process.ts';
import { createThrowawayDatabase, type ThrowawayDatabase } from './throwaway-database.ts';

const BIN = new URL('../../bin/datagate.mjs', import.meta.url).pathname;
const ADMIN = { email: 'root@example.com', password: 'root-password-123' };
const SECRET = 'test-secret-of-at-least-32-characters-0123456789';

/** `datagate serve` with `http.workers` on an ephemeral port; resolves once the primary says all listen. */
function serveInWorkers(env: Record<string, string>): Promise<Served> {
  return serve({ SECRET, ...env }, /listening on http:\/\/127\.0\.0\.1:(\d+) \(\d+ workers\)/);
}

type LogLine = Record<string, unknown>;

function logLines(stdout: string): LogLine[] {
  return stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as LogLine);
}

async function until<T>(what: string, probe: () => T | undefined, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = probe();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The pid of the worker that logged each of these requests. */
async function answeringPids(served: Served, prefix: string, count: number): Promise<Set<unknown>> {
  const ids = Array.from({ length: count }, (_, n) => `${prefix}-${n}`);
  for (const id of ids) assert.is(await freshGet(served.port, '/server/health', { 'X-Request-Id': id }), 200);
  // A worker writes its access-log line as it answers: the line may reach the pipe just after the answer.
  const lines = await until('an access-log line for every request', () => {
    const logged = logLines(served.stdout()).filter((line) => ids.includes(line.requestId as string));
    return logged.length === count ? logged : undefined;
  });
  return new Set(lines.map((line) => line.pid));
}

/** A login whose body arrives in two parts, so it is in flight in a worker for as long as the test wants. */
function slowLogin(port: number) {
  const body = JSON.stringify(ADMIN);
  const half = Math.floor(body.length / 2);
  const socket = connect(port, '127.0.0.1');
  let received = '';
  socket.on('data', (chunk) => (received += chunk));
  socket.on('error', () => {});
  const closed = new Promise<string>((resolve) => socket.on('close', () => resolve(received)));
  socket.write(
    'POST /auth/login HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body.slice(0, half)}`,
  );
  return { finish: () => socket.write(body.slice(half)), closed };
}

const workers = skippableSuite<{ database: ThrowawayDatabase }>(
  '`datagate serve` with http.workers=2 on PostgreSQL',
  postgresSkip,
);

workers.before(async (context) => {
  context.database = await createThrowawayDatabase('workers');
});
workers.after(({ database }) => database.drop());

workers(
  'two workers answer on one port; a killed one is replaced; SIGTERM drains them all and exits 0',
  async ({ database }) => {
    const served = await serveInWorkers({
      HTTP_WORKERS: '2',
      DATABASE_URL: database.url(),
      ADMIN_EMAIL: ADMIN.email,
      ADMIN_PASSWORD: ADMIN.password,
    });
    try {
      const out = served.stdout();
      assert.is(out.match(/Created the first admin/g)?.length, 1, 'the primary bootstraps once');
      const listening = () => logLines(served.stdout()).filter((line) => line.msg === 'worker listening');
      // Each worker writes its own line; the primary's "listening on" may reach the pipe before one of them.
      const firstPids = await until('both workers listening', () => {
        const pids = new Set(listening().map((line) => line.pid));
        return pids.size === 2 ? pids : undefined;
      });
      assert.not.ok(firstPids.has(served.child.pid), 'the primary serves nothing itself');

      assert.equal(await answeringPids(served, 'before', 8), firstPids, 'both workers answer');

      const [killed] = [...firstPids] as number[];
      process.kill(killed!, 'SIGKILL');
      const replacement = await until('a replacement worker', () =>
        listening().find((line) => !firstPids.has(line.pid)),
      );
      const died = logLines(served.stdout()).find((line) => line.msg === 'worker died; replacing it');
      assert.is(died?.pid, killed);
      assert.is(died?.signal, 'SIGKILL');
      const afterPids = await answeringPids(served, 'after', 8);
      assert.ok(afterPids.has(replacement.pid), 'the replacement answers');
      assert.not.ok(afterPids.has(killed), 'the killed worker answers no more');

      const login = slowLogin(served.port);
      await new Promise((resolve) => setTimeout(resolve, 300));
      served.child.kill('SIGTERM');
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.is(served.child.exitCode, null, 'the primary waits for the request in flight');
      login.finish();
      const answer = await login.closed;
      assert.match(answer, /^HTTP\/1\.1 200 OK\r\n/);
      assert.match(answer, /\r\nConnection: close\r\n/i);
      assert.is(await served.exited, 0);
      const shuttingDown = logLines(served.stdout()).filter((line) => line.msg === 'shutting down');
      assert.is(shuttingDown.filter((line) => line.pid !== undefined).length, 2, 'each worker drained');
    } finally {
      served.child.kill('SIGKILL');
    }
  },
);

workers.run();

const embedded = suite<{ dir: string }>('`datagate serve` with http.workers=2 on the embedded database');

embedded.before((context) => {
  context.dir = mkdtempSync(join(tmpdir(), 'datagate-workers-'));
});
embedded.after(({ dir }) => rmSync(dir, { recursive: true, force: true }));

embedded('is refused with the reason, since PGlite is held by one process', async ({ dir }) => {
  const child = spawn(process.execPath, [BIN, 'serve'], {
    env: { ...process.env, PORT: '0', SECRET, HTTP_WORKERS: '2', DATA_DIR: dir, DATABASE_URL: '' },
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const code = await new Promise<number | null>((done) => child.on('close', done));
  assert.is(code, 1);
  assert.match(stderr, /http\.workers: 2 workers need a PostgreSQL server \(database\.url\)/);
});

embedded.run();
