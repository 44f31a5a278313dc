import { mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { serve } from './serve-process.ts';

const ADMIN = { email: 'root@example.com', password: 'root-password-123' };

/**
 * A login whose body arrives in two parts: between them the request is in flight in the server (its
 * handler is reading the body), for as long as the test wants.
 */
function slowLogin(port: number, requestId: string) {
  const body = JSON.stringify(ADMIN);
  const half = Math.floor(body.length / 2);
  const socket: Socket = connect(port, '127.0.0.1');
  let received = '';
  socket.on('data', (chunk) => (received += chunk));
  const closed = new Promise<string>((resolve) => socket.on('close', () => resolve(received)));
  socket.on('error', () => {});
  socket.write(
    'POST /auth/login HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${requestId}\r\n\r\n${body.slice(0, half)}`,
  );
  return { finish: () => socket.write(body.slice(half)), closed };
}

/** Resolves with the error code of a fresh connection attempt, or 'connected'. */
function tryConnect(port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
  });
}

async function refusedWithin(port: number, timeoutMs: number): Promise<boolean> {
  const until = performance.now() + timeoutMs;
  while (performance.now() < until) {
    if ((await tryConnect(port)) === 'ECONNREFUSED') return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return false;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function logLines(stdout: string): Array<Record<string, unknown>> {
  return stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

const shutdown = suite<{ dir: string; env: Record<string, string> }>('graceful shutdown of `datagate serve`');

shutdown.before((context) => {
  context.dir = mkdtempSync(join(tmpdir(), 'datagate-shutdown-'));
  context.env = { DATA_DIR: context.dir, ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password };
});
shutdown.after(({ dir }) => rmSync(dir, { recursive: true, force: true }));

shutdown(
  'SIGTERM: new connections are refused, the request in flight is answered, exit 0',
  async ({ env }) => {
    const server = await serve({ ...env, SHUTDOWN_TIMEOUT: '10s' });
    try {
      // An idle keep-alive connection must not hold the shutdown up.
      const warmUp = await fetch(`http://127.0.0.1:${server.port}/server/health`);
      assert.is(warmUp.status, 200);
      await warmUp.text();

      const login = slowLogin(server.port, 'in-flight-1');
      await pause(300);
      server.child.kill('SIGTERM');
      assert.ok(await refusedWithin(server.port, 2000), 'a new connection is refused while draining');
      assert.is(server.child.exitCode, null, 'still running: the login is not answered yet');

      login.finish();
      const signalled = performance.now();
      const response = await login.closed;
      assert.match(response, /^HTTP\/1\.1 200 OK\r\n/);
      assert.match(response, /\r\nConnection: close\r\n/i);
      assert.match(response, /\r\nX-Request-Id: in-flight-1\r\n/i);
      assert.match(response, /"access_token":"[^"]+"/);
      assert.is(await server.exited, 0);
      const exitMs = performance.now() - signalled;
      assert.ok(exitMs < 3000, `exited ${exitMs} ms after the last answer`);

      const lines = logLines(server.stdout());
      const access = lines.find((line) => line.msg === 'request' && line.requestId === 'in-flight-1');
      assert.ok(access, 'the answered request is in the JSON access log with its id');
      assert.is(access.status, 200);
      assert.ok(lines.some((line) => line.msg === 'shutting down' && line.reason === 'SIGTERM'));
    } finally {
      server.child.kill('SIGKILL');
    }
  },
);

shutdown(
  'a request still unfinished after http.shutdownTimeout is cut, and the process exits 0',
  async ({ env }) => {
    const server = await serve({ ...env, SHUTDOWN_TIMEOUT: '300ms' });
    try {
      const login = slowLogin(server.port, 'never-finished');
      await pause(300);
      const signalled = performance.now();
      server.child.kill('SIGINT');
      assert.is(await login.closed, '', 'cut without an answer');
      assert.is(await server.exited, 0);
      const exitMs = performance.now() - signalled;
      assert.ok(exitMs >= 300 && exitMs < 3000, `exited ${exitMs} ms after SIGINT`);
    } finally {
      server.child.kill('SIGKILL');
    }
  },
);

shutdown.run();
