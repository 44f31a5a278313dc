import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { datagate as run } from '../support/datagate-process.ts';
import { postgresSkip, testDatabaseUrl } from '../support/postgres-server.ts';
import { skippableSuite } from '../support/skippable-suite.ts';

// FORCE_COLOR would colour a pipe for most tools; datagate must stay plain whenever it is not a terminal.
const NOT_A_TERMINAL = { FORCE_COLOR: '3', NO_COLOR: '' };
const ESC = '\x1b';

/** The command with colour asked for, as a terminal would have it, though its output is a pipe. */
const datagate = (args: string[], env: Record<string, string> = {}) =>
  run(args, { ...NOT_A_TERMINAL, ...env });

/** The entries of one section of commander's help ("Options:", "Commands:"): name → description. */
function section(help: string, title: string): Map<string, string> {
  const entries = new Map<string, string>();
  const body = help.split(`\n${title}\n`)[1]?.split('\n\n')[0] ?? '';
  let last = '';
  for (const line of body.split('\n')) {
    const entry = /^ {2}(\S.*?)(?: {2,}(.*))?$/.exec(line);
    if (entry) {
      last = entry[1]!;
      entries.set(last, entry[2] ?? '');
    } else if (last) entries.set(last, `${entries.get(last)} ${line.trim()}`);
  }
  return entries;
}

/** The options each command must offer; the walk below fails on a command missing from this list. */
const OPTIONS: Record<string, string[]> = {
  '': ['--version', '--help'],
  serve: ['--help'],
  migrate: ['--help'],
  bootstrap: ['--help'],
  users: ['--help'],
  'users list': ['--json'],
  'users create': ['--email <email>', '--password <password>', '--role <name>'],
  'users token': ['--email <email>', '--token <token>'],
  'users password': ['--password-stdin'],
  'users suspend': ['--help'],
  'users activate': ['--help'],
  roles: ['--help'],
  'roles list': ['--json'],
  'roles create': ['--name <name>', '--admin'],
  permissions: ['--help'],
  'permissions list': ['--role <name>', '--json'],
  tokens: ['--help'],
  'tokens revoke': ['--help'],
  sample: ['--help'],
  'sample cargos': ['--rows <n>'],
  realtime: ['--help'],
  'realtime watch': ['--help'],
  'realtime unwatch': ['--help'],
  'realtime status': ['--json'],
  export: [
    '--format <format>',
    '--fields <fields>',
    '--filter <json>',
    '--sort <fields>',
    '--search <text>',
    '--limit <n>',
    '--escape-formulas',
  ],
  import: ['--format <format>', '--batch'],
  files: ['--help'],
  'files sweep': ['--delete', '--json', '--older-than <duration>'],
};

const help = suite('datagate --help');

/**
 * Each command's `--help`, run once for both cases below: a process start each, and nothing they print
 * depends on state.
 */
const helps = new Map<string, ReturnType<typeof datagate>>();
const helpOf = (path: string[]) => {
  const key = path.join(' ');
  if (!helps.has(key)) helps.set(key, datagate([...path, '--help']));
  return helps.get(key)!;
};

help('every command and sub-command has a description and describes each of its options', async () => {
  const seen: string[] = [];
  const visit = async (path: string[]): Promise<void> => {
    const run = await helpOf(path);
    const name = path.join(' ');
    assert.is(run.code, 0, `${name} --help: ${run.stderr}`);
    assert.is(run.stderr, '');
    assert.not.ok(run.stdout.includes(ESC), `${path.join(' ')} --help is coloured`);
    assert.ok(run.stdout.startsWith(`Usage: ${['datagate', ...path].join(' ')} `), run.stdout);
    assert.ok(run.stdout.split('\n')[2]!.trim().length > 10, `${name} has no description`);
    // Commander wraps its own text at 80 columns off a terminal; the prose after it must match (examples may not fit).
    for (const line of run.stdout.split('\n'))
      if (!line.startsWith('  $ '))
        assert.ok(line.length <= 80, `${name} --help has a line over 80 columns: ${line}`);
    const options = section(run.stdout, 'Options:');
    for (const [flags, description] of options)
      assert.ok(description.length > 0, `${name}: option ${flags} has no description`);
    const listed = [...options.keys()].join('\n');
    for (const option of OPTIONS[name] ?? assert.unreachable(`unexpected command "${name}"`))
      assert.ok(listed.includes(option), `${name} --help does not mention ${option}`);
    seen.push(name);
    const subs: string[] = [];
    for (const [entry, description] of section(run.stdout, 'Commands:')) {
      const sub = entry.split(' ')[0]!;
      if (sub === 'help') continue;
      assert.ok(description.length > 0, `${name} lists ${sub} without a description`);
      subs.push(sub);
    }
    // Independent processes that open no database: the sub-commands' start together.
    await Promise.all(subs.map((sub) => visit([...path, sub])));
  };
  await visit([]);
  assert.equal(seen.sort(), Object.keys(OPTIONS).sort());
});

help('commands with effects show examples', async () => {
  for (const path of [
    ['serve'],
    ['bootstrap'],
    ['users', 'create'],
    ['users', 'token'],
    ['users', 'password'],
    ['users', 'suspend'],
    ['tokens', 'revoke'],
    ['sample', 'cargos'],
    ['realtime', 'watch'],
    ['realtime', 'unwatch'],
    ['files', 'sweep'],
  ]) {
    const { stdout } = await helpOf(path);
    assert.match(stdout, /\nExamples?:\n {2}\$ /, `${path.join(' ')} --help has no example`);
  }
});

help.run();

const errors = suite('datagate refusals');

/** Usage mistakes: one line naming the mistake and where the right usage is, nothing on stdout. */
const USAGE_MISTAKES: Array<[string[], string]> = [
  [['bogus'], "datagate: unknown command 'bogus'; see 'datagate --help'"],
  [['users', 'bogus'], "datagate: unknown command 'bogus'; see 'datagate users --help'"],
  [['--bogus'], "datagate: unknown option '--bogus'; see 'datagate --help'"],
  [
    ['users', 'create', '--email', 'a@example.com'],
    "datagate: required option '--password <password>' not specified; see 'datagate users create --help'",
  ],
  [
    ['users', 'create', '--email', 'a@example.com', '--password', 'long-enough', '--rol', 'x'],
    "datagate: unknown option '--rol' (Did you mean --role?); see 'datagate users create --help'",
  ],
  [
    ['users'],
    "datagate: missing command (list, create, token, password, suspend, activate); see 'datagate users --help'",
  ],
  [['files'], "datagate: missing command (sweep); see 'datagate files --help'"],
  [['files', 'help', 'bogus'], "datagate: unknown command 'bogus' (sweep); see 'datagate files --help'"],
  [
    ['users', 'password'],
    "datagate: missing required argument 'email'; see 'datagate users password --help'",
  ],
  [
    ['sample', 'cargos', '--rows', 'many'],
    "datagate: option '--rows <n>' argument 'many' is invalid. It must be a whole number ≥ 0; see 'datagate sample cargos --help'",
  ],
  [
    ['files', 'sweep', '--older-than', 'soon'],
    "datagate: option '--older-than <duration>' argument 'soon' is invalid. It must be a duration such as 30m, 6h or 7d; see 'datagate files sweep --help'",
  ],
  [
    ['files', 'sweep', '--older-than', ''],
    "datagate: option '--older-than <duration>' argument '' is invalid. It must be a duration such as 30m, 6h or 7d; see 'datagate files sweep --help'",
  ],
  [
    ['files', 'sweep', '--older-than', '99999999999999999999d'],
    "datagate: option '--older-than <duration>' argument '99999999999999999999d' is invalid. It must be a duration such as 30m, 6h or 7d; see 'datagate files sweep --help'",
  ],
];

errors('a usage mistake is one line on stderr and exit code 1', async () => {
  // Independent processes that open no database: started together, checked in order.
  const runs = await Promise.all(USAGE_MISTAKES.map(([args]) => datagate(args)));
  for (const [index, [args, line]] of USAGE_MISTAKES.entries()) {
    const run = runs[index]!;
    assert.is(run.code, 1, args.join(' '));
    assert.is(run.stdout, '');
    assert.is(run.stderr, `${line}\n`);
  }
});

errors('an unreachable database is one line saying so, without colour', async () => {
  const run = await datagate(['migrate'], { DATABASE_URL: 'postgresql://datagate@127.0.0.1:1/none' });
  assert.is(run.code, 1);
  assert.is(run.stderr, 'datagate: the database cannot be reached: connection refused (ECONNREFUSED)\n');
});

errors(
  'a HOST that cannot be listened on is one line about the address, not about the database',
  async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'datagate-host-'));
    try {
      const hosts = [
        [
          'no-such-host.invalid',
          /^datagate: port 18799 on no-such-host\.invalid cannot be listened on: the host name /,
        ],
        ['192.0.2.1', /^datagate: port 18799 on 192\.0\.2\.1 cannot be listened on: no network interface /],
      ] as const;
      // A data directory each, so that the two servers (each opening its database) start together.
      const runs = await Promise.all(
        hosts.map(([host], index) =>
          datagate(['serve'], { HOST: host, PORT: '18799', DATA_DIR: join(dataDir, String(index)) }),
        ),
      );
      for (const [index, [, reason]] of hosts.entries()) {
        const run = runs[index]!;
        assert.is(run.code, 1, run.stderr);
        assert.match(run.stderr, reason);
        assert.is(run.stderr.trim().split('\n').length, 1, run.stderr);
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  },
);

errors.run();

const onPostgres = skippableSuite('datagate refusals by a PostgreSQL server', postgresSkip);

onPostgres('a login the database refuses says so, not as a missing datagate role would', async () => {
  const url = new URL(testDatabaseUrl());
  url.username = 'no_such_login_role';
  url.password = '';
  const run = await datagate(['users', 'list'], { DATABASE_URL: url.toString() });
  assert.is(run.code, 1);
  assert.is(
    run.stderr,
    'datagate: the database refused the login: role "no_such_login_role" does not exist (28000)\n',
  );
});

onPostgres.run();
