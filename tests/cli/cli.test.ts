import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';

const BIN = new URL('../../bin/datagate.mjs', import.meta.url).pathname;

type Run = { code: number | null; stdout: string; stderr: string };

function datagate(args: string[], env: Record<string, string>): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Starts `serve` and resolves with its URL once it says where it listens. */
function serve(
  env: Record<string, string>,
): Promise<{ url: string; child: ChildProcess; stdout: () => string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'serve'], { env: { ...process.env, PORT: '0', ...env } });
    let stdout = '';
    child.stdout!.on('data', (chunk) => {
      stdout += chunk;
      const match = /listening on (http:\S+)/.exec(stdout);
      if (match) resolve({ url: match[1]!, child, stdout: () => stdout });
    });
    child.on('close', (code) => reject(new Error(`serve exited early with ${code}`)));
  });
}

const stopped = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => {
    child.removeAllListeners('close');
    child.on('close', (code) => resolve(code));
    child.kill('SIGTERM');
  });

const cli = suite<{ dir: string; env: Record<string, string> }>(
  'datagate command line on the embedded database',
);

cli.before((context) => {
  context.dir = mkdtempSync(join(tmpdir(), 'datagate-cli-'));
  context.env = { DATA_DIR: context.dir, ADMIN_EMAIL: 'root@example.com' };
});
cli.after(({ dir }) => rmSync(dir, { recursive: true, force: true }));

cli('bootstrap creates the first admin once and prints a generated password', async ({ env }) => {
  // Not a terminal: plain text even where FORCE_COLOR would colour most tools' output.
  const first = await datagate(['bootstrap'], { ...env, FORCE_COLOR: '3' });
  assert.is(first.code, 0, first.stderr);
  assert.match(first.stdout, /Created the first admin: root@example\.com \/ \S{16,}\n/);
  assert.match(first.stdout, /\nThis password is shown only once: write it down now\.\n$/);
  const second = await datagate(['bootstrap'], env);
  assert.is(second.code, 0, second.stderr);
  assert.match(second.stdout, 'already exists');
});

cli('roles, users and static tokens are created from the command line', async ({ env }) => {
  assert.is((await datagate(['roles', 'create', '--name', 'Operators'], env)).code, 0);
  const user = await datagate(
    ['users', 'create', '--email', 'op@example.com', '--password', 'operator-pass', '--role', 'Operators'],
    env,
  );
  assert.is(user.code, 0, user.stderr);
  const token = await datagate(['users', 'token', '--email', 'op@example.com'], env);
  assert.is(token.code, 0, token.stderr);
  assert.ok(token.stdout.trim().length >= 32);
});

cli('a failing command exits non-zero with one line saying why', async ({ env }) => {
  const duplicate = await datagate(
    ['users', 'create', '--email', 'op@example.com', '--password', 'operator-pass'],
    env,
  );
  assert.is(duplicate.code, 1);
  assert.is(duplicate.stderr.trim(), 'datagate: email: Value of "email" has to be unique.');
  const missingRole = await datagate(
    ['users', 'create', '--email', 'x@example.com', '--password', 'operator-pass', '--role', 'Nope'],
    env,
  );
  assert.is(missingRole.stderr.trim(), 'datagate: role "Nope" does not exist');
  const badConfig = await datagate(['migrate'], { ...env, ACCESS_TOKEN_TTL: 'soon' });
  assert.is(badConfig.code, 1);
  assert.match(badConfig.stderr, /^datagate: invalid configuration: auth\.accessTokenTTL: /);
});

cli(
  'serve answers with the data the command line made, holds the data dir, and stops on SIGTERM',
  async ({ env }) => {
    const token = (await datagate(['users', 'token', '--email', 'op@example.com'], env)).stdout.trim();
    const server = await serve(env);
    try {
      const me = await fetch(`${server.url}/users/me`, { headers: { Authorization: `Bearer ${token}` } });
      assert.is(me.status, 200);
      assert.is(((await me.json()) as { email: string }).email, 'op@example.com');
      const login = await fetch(`${server.url}/auth/login`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ email: 'op@example.com', password: 'operator-pass' }),
      });
      assert.is(login.status, 200);
      const second = await datagate(['serve'], { ...env, PORT: '0' });
      assert.is(second.code, 1);
      assert.match(second.stderr, /is in use by another datagate process/);
    } finally {
      assert.is(await stopped(server.child), 0);
    }
  },
);

cli.run();
