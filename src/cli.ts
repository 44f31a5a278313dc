import nodeModule from 'node:module';
import { Command, InvalidArgumentError, Option } from 'commander';
import ms from 'ms';
import { failureReason } from './adapters/cli/failure-reason.ts';
import { errorLine, oneLineUsageErrors } from './adapters/cli/one-line-errors.ts';
import { VERSION } from './version.ts';

/** `datagate export`'s options, as the API's query parameters. */
type ExportCommandOptions = {
  format: string;
  fields?: string;
  filter?: string;
  sort?: string;
  search?: string;
  limit?: number;
  escapeFormulas?: boolean;
};

// Node 22.1+ keeps the compiled code of the modules loaded after this line (the server's ~3 MB of chunks) in
// a cache on disk, so a restart does not parse and compile them again (docs/decisions/0051); NODE_COMPILE_CACHE
// moves it and NODE_DISABLE_COMPILE_CACHE=1 turns it off. Node 20 has no such cache and skips this.
(nodeModule as { enableCompileCache?: () => unknown }).enableCompileCache?.();

/** Loaded only when a command runs (see cli-commands.ts). */
const commands = () => import('./cli-commands.ts');

const program = new Command()
  .name('datagate')
  .description('Confidential-by-default data API over PostgreSQL: users, roles, permissions and items.')
  .version(VERSION)
  .addHelpText(
    'after',
    `
Without a command, datagate runs \`serve\`.

Examples:
  $ datagate                            start the server
  $ datagate sample cargos --rows 1000  sample data to try the API on
  $ datagate import cargos cargos.csv   add the rows of a file
  $ datagate users create --help        the options of one command`,
  )
  .addHelpText(
    'afterAll',
    `
The database is DATABASE_URL (PostgreSQL) or else the embedded one in DATA_DIR
(default ./data). All settings: README.md, "Configuration".`,
  );

program
  .command('serve')
  .description('migrate, create the first admin if there is none, and serve the HTTP API (the default)')
  .addHelpText(
    'after',
    `
Listens on HOST:PORT (default 127.0.0.1:8055). With no admin yet, it creates
the Administrator role and an admin from ADMIN_EMAIL / ADMIN_PASSWORD, or
generates a password and prints it once; with an admin, those two are ignored
(a warning says so) and \`users password\` sets a lost password. While the
database cannot be reached it answers 503 and retries. SIGTERM or SIGINT let
requests in flight finish (at most SHUTDOWN_TIMEOUT), then it exits 0. With
HTTP_WORKERS=N (or auto: one per core; PostgreSQL only) it serves in N worker
processes on the one port.

Examples:
  $ datagate serve
  $ ADMIN_EMAIL=a@example.com ADMIN_PASSWORD='a long password' datagate serve
  $ PORT=8080 DATABASE_URL=postgresql://app@db.internal:5432/app datagate serve
  $ HTTP_WORKERS=auto DATABASE_URL=postgresql://app@db.internal:5432/app datagate serve`,
  )
  .action(async () => {
    const [{ loadConfig }, { resolveSecret }, { compiledPgliteWasm }] = await Promise.all([
      import('./adapters/config/load-config.ts'),
      import('./adapters/config/resolve-secret.ts'),
      import('./adapters/persistence/mikro-orm/pglite-wasm.ts'),
    ]);
    const config = resolveSecret(loadConfig());
    // On the embedded database, PGlite's WebAssembly compiles on V8's background threads while the server's
    // modules load on this one (decision 0045).
    if (!config.database.url) void compiledPgliteWasm();
    await (await commands()).serve(config);
  });

program
  .command('migrate')
  .description("create or update datagate's own tables (datagate_*); no other table is touched")
  .action(async () => (await commands()).migrate());

program
  .command('bootstrap')
  .description('migrate, then create the Administrator role and the first admin if no admin exists')
  .addHelpText(
    'after',
    `
The admin is ADMIN_EMAIL (default admin@example.com) with ADMIN_PASSWORD, or
with a generated password printed once. Does nothing when an admin exists
(\`users password\` sets a lost password); \`serve\` does the same on start.

Example:
  $ ADMIN_EMAIL=a@example.com ADMIN_PASSWORD='a long password' datagate bootstrap`,
  )
  .action(async () => (await commands()).bootstrap());

const FILE_FORMATS = ['csv', 'json', 'ndjson'];

const JSON_OPTION = ['--json', "print the API's JSON instead of a table"] as const;

const users = program
  .command('users')
  .description('list and create users, set their passwords, static tokens and status');
users
  .command('list')
  .description('list the users: e-mail, status, role, whether a static token is set, id')
  .option(...JSON_OPTION, false)
  .addHelpText(
    'after',
    `
Example:
  $ datagate users list`,
  )
  .action(async (options: { json: boolean }) => (await commands()).listUsers(options));
users
  .command('create')
  .description('create an active user')
  .requiredOption('--email <email>', 'e-mail address (stored trimmed and lower-cased)')
  .requiredOption('--password <password>', 'password, 8 to 512 characters')
  .option('--role <name>', 'name of an existing role; without it the user has only public permissions')
  .addHelpText(
    'after',
    `
Example:
  $ datagate users create --email op@example.com --password 'operator-password' --role Operator`,
  )
  .action(async (options: { email: string; password: string; role?: string }) =>
    (await commands()).createUser(options),
  );
users
  .command('token')
  .description("set a user's static token, for servers calling the API (replaces the previous one)")
  .requiredOption('--email <email>', 'e-mail address of the user')
  .option(
    '--token <token>',
    'the token, 32 to 512 visible ASCII characters; without it one is generated and printed',
  )
  .addHelpText(
    'after',
    `
Only a digest of the token is stored: a generated token is printed this once,
alone on stdout.

Examples:
  $ TOKEN=$(datagate users token --email op@example.com)
  $ curl -H "Authorization: Bearer $TOKEN" http://127.0.0.1:8055/users/me`,
  )
  .action(async (options: { email: string; token?: string }) => (await commands()).setStaticToken(options));
users
  .command('password')
  .description("set a user's password (a lost one, too); ends the user's sessions")
  .argument('<email>', 'e-mail address of the user')
  .option('--password-stdin', 'read the password from stdin instead of asking on the terminal', false)
  .addHelpText(
    'after',
    `
On a terminal it asks for the password twice, without showing it. From a
script, pipe it in: the one line break at its end is not part of it.

Examples:
  $ datagate users password admin@example.com
  $ printf '%s' "$NEW_PASSWORD" | datagate users password admin@example.com --password-stdin`,
  )
  .action(async (email: string, options: { passwordStdin: boolean }) =>
    (await commands()).setPassword(email, options),
  );
users
  .command('suspend')
  .description('suspend a user: no login, no token is accepted, the sessions end')
  .argument('<email>', 'e-mail address of the user')
  .addHelpText(
    'after',
    `
The last active admin cannot be suspended.

Example:
  $ datagate users suspend op@example.com`,
  )
  .action(async (email: string) => (await commands()).setStatus(email, 'suspended'));
users
  .command('activate')
  .description('make a suspended user active again')
  .argument('<email>', 'e-mail address of the user')
  .addHelpText(
    'after',
    `
Example:
  $ datagate users activate op@example.com`,
  )
  .action(async (email: string) => (await commands()).setStatus(email, 'active'));

const roles = program.command('roles').description('list and create roles');
roles
  .command('list')
  .description('list the roles: name, admin access, id')
  .option(...JSON_OPTION, false)
  .addHelpText(
    'after',
    `
Example:
  $ datagate roles list`,
  )
  .action(async (options: { json: boolean }) => (await commands()).listRoles(options));
roles
  .command('create')
  .description('create a role; what its members may do is granted with POST /permissions')
  .requiredOption('--name <name>', 'name of the role, 1 to 100 characters')
  .option('--admin', 'give the role admin access (bypasses all permissions)', false)
  .addHelpText(
    'after',
    `
Examples:
  $ datagate roles create --name Operator
  $ datagate roles create --name Maintainers --admin`,
  )
  .action(async (options: { name: string; admin: boolean }) => (await commands()).createRole(options));

program
  .command('permissions')
  .description('list permissions')
  .command('list')
  .description('list the permissions: role, collection, action, fields, row filter, id')
  .option('--role <name>', 'only the permissions of this role')
  .option(...JSON_OPTION, false)
  .addHelpText(
    'after',
    `
The role "(public)" is what callers without a token may do. Permissions are
granted and changed with /permissions (README, "Walk-through").

Examples:
  $ datagate permissions list
  $ datagate permissions list --role Operator --json`,
  )
  .action(async (options: { role?: string; json: boolean }) => (await commands()).listPermissions(options));

program
  .command('tokens')
  .description("revoke users' tokens")
  .command('revoke')
  .description("end a user's login sessions and remove its static token; the password stays")
  .argument('<email>', 'e-mail address of the user')
  .addHelpText(
    'after',
    `
Refresh tokens stop working at once; the access tokens already issued live
out their ACCESS_TOKEN_TTL (default 15 minutes) unless
CHECK_SESSION_ON_EACH_REQUEST is on, or until \`users suspend\`. A server that
used the static token needs a new one: datagate users token --email <email>.

Example:
  $ datagate tokens revoke op@example.com`,
  )
  .action(async (email: string) => (await commands()).revokeTokens(email));

const realtime = program
  .command('realtime')
  .description('make writes made by hand in SQL realtime events too, per collection');
realtime
  .command('watch')
  .description(
    "record the collection's writes made by hand in SQL (psql, another application) as realtime events",
  )
  .argument('<collection>', 'name of the collection; it needs a single-column primary key')
  .addHelpText(
    'after',
    `
A trigger on the table records every insert, update, delete and truncate,
whoever makes it, cascades of foreign keys included, as the API records its own
writes. A column changed by hand (not through the API) needs \`watch\` again:
until then the table's writes are refused. The embedded database is held by
one process at a time, so run this before \`serve\`.

Example:
  $ datagate realtime watch cargos`,
  )
  .action(async (collection: string) => (await commands()).watchCollection(collection));
realtime
  .command('unwatch')
  .description('stop recording the writes made by hand; writes through datagate stay events')
  .argument('<collection>', 'name of the collection')
  .addHelpText(
    'after',
    `
Example:
  $ datagate realtime unwatch cargos`,
  )
  .action(async (collection: string) => (await commands()).unwatchCollection(collection));
realtime
  .command('status')
  .description('list the watched collections, and whether their trigger matches their columns')
  .option(...JSON_OPTION, false)
  .addHelpText(
    'after',
    `
Example:
  $ datagate realtime status`,
  )
  .action(async (options: { json: boolean }) => (await commands()).realtimeStatus(options));

program
  .command('sample')
  .description('create sample data')
  .command('cargos')
  .description(
    "create the seed's sample `cargos` collection (with `shipments` and `customers`) if it is missing, and add generated rows",
  )
  .option('--rows <n>', 'how many rows to add', wholeNumber, 1000)
  .addHelpText(
    'after',
    `
The database generates the rows, 50,000 a batch (1,000,000 rows: about 5 s on
PostgreSQL); a progress bar shows on a terminal. Each cargo refers to a shipment
(a new one for about every 50 cargos), each shipment to one of 8 customers, by
indexed foreign keys: relations to try nested reads and filters on. The
embedded database is held by one process at a time, so run this before
\`serve\`. A server running on PostgreSQL serves the new tables within a
second, or 5 s where it reads the schema by fingerprint (docs/api.md §10).

Example:
  $ datagate sample cargos --rows 1000000`,
  )
  .action(async (options: { rows: number }) => (await commands()).addSampleCargos(options.rows));

program
  .command('export')
  .description('write the items of a collection to stdout as CSV, JSON or NDJSON, as an admin')
  .argument('<collection>', 'the collection to export')
  .addOption(new Option('--format <format>', 'the format').choices(FILE_FORMATS).default('csv'))
  .option(
    '--fields <fields>',
    'comma list of fields, nested ones too (`id,shipment.number`); default every field',
  )
  .option('--filter <json>', 'a filter as JSON, as the API takes it')
  .option('--sort <fields>', 'comma list of fields, `-` for descending')
  .option('--search <text>', 'text to find in the text fields')
  .option('--limit <n>', 'at most this many items', wholeNumber)
  .option(
    '--escape-formulas',
    "CSV for a spreadsheet: a text starting with =, +, -, @, tab or CR gets a leading ' (not for import)",
  )
  .addHelpText(
    'after',
    `
The same export as GET /items/<collection>?export=<format> (docs/api.md §13),
with an admin's rights: streamed page by page, so any size fits in constant
memory. The file goes to stdout; the rows written and the rate go to stderr
(redrawn on a terminal, a line every 10 s otherwise).

Examples:
  $ datagate export cargos --format csv > cargos.csv
  $ datagate export cargos --format ndjson --fields id,temperature --filter '{"temperature":{"_gt":8}}'`,
  )
  .action(async (collection: string, options: ExportCommandOptions) =>
    (await commands()).exportItems(collection, options),
  );

program
  .command('import')
  .description('create items from a CSV, JSON or NDJSON file, checked as POST /items checks them')
  .argument('<collection>', 'the collection to add the rows to')
  .argument('<file>', 'the file; its extension (.csv, .json, .ndjson, .jsonl) names its format')
  .addOption(new Option('--format <format>', 'the format, whatever the extension').choices(FILE_FORMATS))
  .option('--batch', 'commit every import.chunkRows rows on their own instead of all or nothing', false)
  .addHelpText(
    'after',
    `
Runs with an admin's rights. By default the file is one transaction: a bad row
stops the import, names the row and field, and nothing is written. With --batch
each chunk commits alone; refused chunks are listed and the exit code is 1.
A CSV file starts with a header of field names. Progress goes to stderr.

Examples:
  $ datagate import cargos ./cargos.csv
  $ datagate import cargos ./cargos.jsonl --format ndjson --batch`,
  )
  .action(
    async (
      collection: string,
      file: string,
      options: { format?: 'csv' | 'json' | 'ndjson'; batch: boolean },
    ) => (await commands()).importFile(collection, file, options),
  );

program
  .command('files')
  .description("check the files' bytes against their rows")
  .command('sweep')
  .description(
    'report (and with --delete remove) bytes no file row needs; report rows whose bytes are missing',
  )
  .option('--delete', 'remove the orphans found (rows are never deleted)', false)
  .option('--json', 'one JSON object a line: each finding, then the summary', false)
  .addOption(
    new Option('--older-than <duration>', 'an unfinished upload (tmp/) older than this is an orphan')
      .argParser(duration)
      .default(ms('1h'), '1h'),
  )
  .addHelpText(
    'after',
    `
Orphans are what a crash between a row's commit and its bytes' move or removal
leaves: files/<id> with no row, variants/<id>/... whose file row is gone, and
tmp/... uploads older than --older-than (default 1h; uploads in progress are
younger, keep it above your longest upload). Rows whose bytes are missing are
reported, never deleted. The store is listed page by page, in constant memory;
a progress bar shows on a terminal; the summary gives counts and bytes; exit 0.
Against PostgreSQL it may run while servers run; the embedded database is held
by one process at a time, so stop \`serve\` first.

Examples:
  $ datagate files sweep
  $ datagate files sweep --delete --older-than 6h
  $ datagate files sweep --json | jq 'select(.type == "orphan") | .key'`,
  )
  .action(async (options: { delete: boolean; json: boolean; olderThan: number }) =>
    (await commands()).sweepFiles(options),
  );

/** `ms`-style text (`90s`, `15m`, `6h`, `7d`), as the configuration takes durations. */
function duration(value: string): number {
  // `ms` throws on an empty text, and reads 1e20d as a number no date can be that far from.
  const millis = value === '' ? Number.NaN : ms(value as ms.StringValue);
  if (typeof millis !== 'number' || !Number.isSafeInteger(Math.round(millis)) || millis < 0)
    throw new InvalidArgumentError('It must be a duration such as 30m, 6h or 7d.');
  return millis;
}

function wholeNumber(value: string): number {
  const number = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(number))
    throw new InvalidArgumentError('It must be a whole number ≥ 0.');
  return number;
}

oneLineUsageErrors(program);

// A one-shot command is over when its action is. Commands end by themselves (tests/faults runs them
// without this exit); it remains for a store whose close gave up on a part that did not close in time (a
// server that stopped answering): that part's socket would otherwise keep the process alive after the
// warning naming it.
program.hook('postAction', (_program, command) => {
  if (command.name() !== 'serve') process.exit(process.exitCode ?? 0);
});

// `serve` is the default only for a bare `datagate`: a mistyped command must be refused, not served.
const args = process.argv.slice(2);
program.parseAsync(args.length > 0 ? args : ['serve'], { from: 'user' }).catch((error: unknown) => {
  console.error(errorLine(failureReason(error)));
  process.exit(1);
});
