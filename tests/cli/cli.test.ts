import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';

const BIN = new URL('../../bin/datagate.mjs', import.meta.url).pathname;

type Run = { code: number | null; stdout: string; stderr: string };

/** `input`, when given, is all of the command's stdin; without it stdin is a pipe nobody writes to. */
function datagate(args: string[], env: Record<string, string>, input?: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, ...env } });
    if (input !== undefined) child.stdin.end(input);
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

const cli = suite<{ dir: string; env: Record<string, string>; token: string }>(
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
  assert.is(
    second.stdout,
    'An admin already exists: nothing to do.\nADMIN_EMAIL is ignored: an admin already exists, and only the first admin is created from them. To set a password: datagate users password <email> (datagate users list shows the users).\n',
  );
});

cli('roles, users and static tokens are created from the command line', async (context) => {
  const { env } = context;
  assert.is((await datagate(['roles', 'create', '--name', 'Operators'], env)).code, 0);
  const user = await datagate(
    ['users', 'create', '--email', 'op@example.com', '--password', 'operator-pass', '--role', 'Operators'],
    env,
  );
  assert.is(user.code, 0, user.stderr);
  const token = await datagate(['users', 'token', '--email', 'op@example.com'], env);
  assert.is(token.code, 0, token.stderr);
  assert.ok(token.stdout.trim().length >= 32);
  // For `serve` below: each `users token` replaces the token, and each command opens the database.
  context.token = token.stdout.trim();
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
  // An empty name (`--role "$ROLE"`, the variable unset) names no role: it is not the public role.
  const emptyRole = await datagate(
    ['users', 'create', '--email', 'x@example.com', '--password', 'operator-pass', '--role', ''],
    env,
  );
  assert.is(emptyRole.code, 1);
  assert.is(emptyRole.stderr, 'datagate: role "" does not exist\n');
  const emptyRoleList = await datagate(['permissions', 'list', '--role', ''], env);
  assert.is(emptyRoleList.code, 1);
  assert.is(emptyRoleList.stderr, 'datagate: role "" does not exist\n');
  const missingUser = await datagate(['users', 'token', '--email', 'nobody@example.com'], env);
  assert.is(missingUser.code, 1);
  assert.is(missingUser.stderr, 'datagate: user "nobody@example.com" does not exist\n');
  const badConfig = await datagate(['migrate'], { ...env, ACCESS_TOKEN_TTL: 'soon' });
  assert.is(badConfig.code, 1);
  assert.match(badConfig.stderr, /^datagate: invalid configuration: auth\.accessTokenTTL: /);
});

/** The rows of a `… list` table, each split into its columns. */
const rows = (run: Run) =>
  run.stdout
    .trim()
    .split('\n')
    .map((line) => line.split(/ {2,}/));

// Each command opens the embedded database (seconds of CPU): the cases below check as much as they can per run.

cli('users, roles and permissions are listed as tables, or as the API JSON', async ({ env }) => {
  const users = await datagate(['users', 'list'], env);
  assert.is(users.code, 0, users.stderr);
  const [header, ...lines] = rows(users);
  assert.equal(header, ['EMAIL', 'STATUS', 'ROLE', 'STATIC TOKEN', 'ID']);
  assert.equal(
    lines.map((line) => line.slice(0, 4)),
    [
      ['root@example.com', 'active', 'Administrator', 'no'],
      ['op@example.com', 'active', 'Operators', 'yes'],
    ],
  );
  const roles = await datagate(['roles', 'list', '--json'], env);
  assert.equal(
    (JSON.parse(roles.stdout) as Array<{ name: string; admin_access: boolean }>).map((role) => [
      role.name,
      role.admin_access,
    ]),
    [
      ['Administrator', true],
      ['Operators', false],
    ],
  );
  const permissions = await datagate(['permissions', 'list', '--role', 'Operators'], env);
  assert.is(permissions.code, 0, permissions.stderr);
  assert.is(permissions.stdout, 'ROLE  COLLECTION  ACTION  FIELDS  PERMISSIONS  ID\n');
});

cli('a password is set from stdin, and never asked for without a terminal', async ({ env }) => {
  const noTerminal = await datagate(['users', 'password', 'root@example.com'], env);
  assert.is(noTerminal.code, 1);
  assert.is(
    noTerminal.stderr,
    'datagate: no terminal to ask for the password on: pipe it in with --password-stdin\n',
  );
  const set = await datagate(
    ['users', 'password', 'ROOT@example.com', '--password-stdin'],
    env,
    'the new root password\n',
  );
  assert.is(set.code, 0, set.stderr);
  assert.is(set.stdout, 'Password changed for root@example.com; its sessions are ended.\n');
  const unknown = await datagate(['users', 'suspend', 'nobody@example.com'], env);
  assert.is(unknown.stderr, 'datagate: user "nobody@example.com" does not exist\n');
});

cli('users are suspended and activated; the last admin is not suspended', async ({ env }) => {
  const suspend = await datagate(['users', 'suspend', 'op@example.com'], env);
  assert.is(suspend.stdout, 'Suspended op@example.com; its sessions are ended.\n', suspend.stderr);
  const lastAdmin = await datagate(['users', 'suspend', 'root@example.com'], env);
  assert.is(lastAdmin.code, 1);
  assert.match(lastAdmin.stderr, /^datagate: .*admin/);
  const activate = await datagate(['users', 'activate', 'op@example.com'], env);
  assert.is(activate.stdout, 'Activated op@example.com.\n', activate.stderr);
});

cli(
  'serve answers with the data the command line made, holds the data dir, warns of ignored settings, and stops on SIGTERM',
  async ({ env, token }) => {
    const server = await serve({ ...env, ADMIN_PASSWORD: 'not used at all', LOG_LEVEL: 'warn' });
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
      const whileServing = await datagate(['users', 'list'], env);
      assert.is(whileServing.code, 1);
      assert.match(
        whileServing.stderr,
        /is in use by another datagate process \(pid \d+\);.* stop that one first\n$/,
      );
    } finally {
      assert.is(await stopped(server.child), 0);
    }
    const warnings = server
      .stdout()
      .split('\n')
      .filter((line) => line.includes('ignored'));
    assert.is(warnings.length, 1, server.stdout());
    const warning = JSON.parse(warnings[0]!) as { level: number; msg: string };
    assert.is(warning.level, 40);
    assert.match(warning.msg, /^ADMIN_EMAIL and ADMIN_PASSWORD are ignored: an admin already exists/);
    assert.match(warning.msg, 'datagate users password <email>');
  },
);

cli('tokens revoke ends the sessions and removes the static token', async ({ env }) => {
  const revoke = await datagate(['tokens', 'revoke', 'op@example.com'], env);
  assert.is(revoke.code, 0, revoke.stderr);
  assert.is(revoke.stdout, 'Ended the sessions of op@example.com and removed its static token.\n');
});

cli.run();
