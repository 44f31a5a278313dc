// CPU per request and peak RSS of built servers, side by side, on one seeded database: the figures that survive
// a box shared with other work (throughput does not). Each round starts every build in turn, logs in, runs a
// fixed number of requests per case and reads the server's CPU time from /proc before and after; the report
// gives each build's median over the rounds.
// Usage: node --import tsx bench/cpu-per-request.ts <built cli.js>...   (e.g. dist/src/cli.js old/src/cli.js);
// `<cli.js>|<node flags>` runs that build with those flags (e.g. 'dist/src/cli.js|--max-semi-space-size=8').
// env: DATABASE_URL (the server, default 127.0.0.1:5432), PROBE_ROWS (10000), PROBE_REQUESTS (4000 per case),
// PROBE_ROUNDS (3), PROBE_CASES (comma-separated), PROBE_KEEP_DB=1 (reuse the seeded database next time),
// PROBE_NODE_ARGS (extra node flags for the servers, e.g. --cpu-prof).
// Floors as builds: `@floor` (bench/floor-server.mjs), `@floor-prepared` (the same, statements prepared) and
// `@koa-floor` (bench/koa-floor.mjs, Koa + @koa/router + pg, prepared) answer each case with the statement
// datagate runs for it (bench/plan.ts, planned by the first datagate build listed, which must come first).
// PROBE_INSTRUCTIONS=1 runs each server under valgrind's callgrind and counts the instructions per request (every
// thread, GC and JIT compilation included) instead of CPU time: slow (two minutes per case and build at 20,000
// warm-up and 5,000 counted requests) and blind to cache misses, but far less moved by other work on the box than
// CPU time (rounds within ±2–4 % beside light work, ±15 % beside a full test run; ±20 % at 1000 requests), so
// builds can be compared while other work runs. RSS under valgrind means nothing. Under valgrind a server runs
// ~50× slower, so it is started with `--no-concurrent-recompilation` (a hot function is optimized at once on the
// main thread, where in the background, one valgrind thread at a time, functions stayed in baseline code for tens
// of thousands of requests), warmed with PROBE_WARMUP requests (20000), and each count is split into the JIT
// compilers, the garbage collector and the rest (bench/NOTES.md §7.10).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import {
  apiCall,
  ChildProcesses,
  cpuTimeMs,
  databaseUrl,
  freePort,
  productionServerEnv,
  quoteId,
  rssMb,
  seedCargosWithOperator,
  waitFor,
  withClient,
} from '../scripts/local-harness.ts';
import { instructionsByFunction } from './callgrind-functions.ts';

const ROOT = new URL('..', import.meta.url).pathname;
const env = process.env;
const builds = process.argv.slice(2);
if (builds.length === 0) throw new Error('usage: bench/cpu-per-request.ts <built cli.js>...');
const SERVER_URL = env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const ROWS = Number(env.PROBE_ROWS ?? 10_000);
const REQUESTS = Number(env.PROBE_REQUESTS ?? 4000);
const ROUNDS = Number(env.PROBE_ROUNDS ?? 3);
const NODE_ARGS = env.PROBE_NODE_ARGS ? env.PROBE_NODE_ARGS.split(' ') : [];
const INSTRUCTIONS = env.PROBE_INSTRUCTIONS === '1';
const INSTRUCTION_WARMUP = Number(env.PROBE_WARMUP ?? 20_000);
/** Requests each case runs before it is measured, at least (CPU time; instructions warm up with PROBE_WARMUP). */
const WARMUP_REQUESTS = 5000;
const ADMIN = { email: 'admin@bench.local', password: 'admin-bench-password' };
const OPERATOR = { email: 'op@bench.local', password: 'operator-bench-password' };
const DB = `datagate_cpu_probe_${ROWS}`;
const url = databaseUrl(SERVER_URL, DB);
const { start, run, stop, stopAll } = new ChildProcesses(ROOT);
const dir = mkdtempSync(join(tmpdir(), 'cpu-probe-'));
const log = (line: string) => process.stderr.write(`[probe] ${line}\n`);

type Case = { name: string; path: string; who: 'static' | 'jwt' };
const ALL_CASES: Case[] = [
  { name: 'list_admin_static', path: '/items/cargos?limit=100', who: 'static' },
  { name: 'list_role_jwt', path: '/items/cargos?limit=100', who: 'jwt' },
  { name: 'get_one', path: '/items/cargos/:visible', who: 'jwt' },
  {
    name: 'filter_sort',
    path: '/items/cargos?filter[temperature][_gt]=10&sort=-date_created&limit=50',
    who: 'jwt',
  },
];
const wanted = env.PROBE_CASES ? new Set(env.PROBE_CASES.split(',')) : null;
const CASES = ALL_CASES.filter((c) => wanted === null || wanted.has(c.name));

const admin = <T>(work: (client: import('pg').Client) => Promise<T>) =>
  withClient(databaseUrl(SERVER_URL, 'postgres'), work);

async function serverEnv(port: number) {
  return productionServerEnv({
    databaseUrl: url,
    port,
    admin: ADMIN,
    extra: {
      ACCESS_TOKEN_TTL: '1d',
      LOGIN_THROTTLE: 'false',
      SECRET: STATIC_SECRET,
      // Under valgrind every request takes longer than the 50 ms that makes a caller slow, so the caller would
      // wait at 2 turns where at native speed it borrows up to 8 (bench/NOTES.md §7.10).
      ...(INSTRUCTIONS ? { PER_CALLER_QUICK: '1h' } : {}),
    },
  });
}
/** One secret for every server, so one static token and one role serve all builds. */
const STATIC_SECRET = 'c0ffee'.repeat(11);

async function seed(cli: string): Promise<{ staticToken: string }> {
  const exists = await admin(
    async (c) => (await c.query('select 1 from pg_database where datname = $1', [DB])).rowCount,
  );
  const staticToken = 'probe'.padEnd(64, '0');
  if (exists && env.PROBE_KEEP_DB === '1') return { staticToken };
  await admin((c) => c.query(`drop database if exists ${quoteId(DB)} with (force)`));
  await admin((c) => c.query(`create database ${quoteId(DB)}`));
  const e = await serverEnv(await freePort());
  const step = (...args: string[]) => run(process.execPath, [cli, ...args], { env: e, timeoutMs: 900_000 });
  await seedCargosWithOperator(step, ROWS, OPERATOR);
  await step('users', 'token', '--email', ADMIN.email, '--token', staticToken);
  await withClient(url, (c) => c.query('vacuum analyze cargos'));
  return { staticToken };
}

type Figures = Record<string, { cpu: number[]; rss: number[] }>;

function figureOf(figures: Figures, name: string) {
  const existing = figures[name];
  if (existing) return existing;
  const created = { cpu: [], rss: [] };
  figures[name] = created;
  return created;
}

const FLOORS: Record<string, string[]> = {
  '@floor': ['bench/floor-server.mjs'],
  '@floor-prepared': ['bench/floor-server.mjs', 'prepared'],
  '@koa-floor': ['bench/koa-floor.mjs'],
};
const planFile = join(dir, 'plan.json');
let planned = false;

/** The statements datagate runs for the cases, for the floors to run (bench/plan.ts). */
async function planFloors(port: number, tokens: Record<Case['who'], string>, visible: string) {
  const cases = CASES.map((c) => ({
    name: c.name,
    path: c.path.replace(':visible', visible),
    token: tokens[c.who],
  }));
  await run(process.execPath, ['--import', 'tsx', 'bench/plan.ts', planFile], {
    env: await serverEnv(port),
    input: JSON.stringify({ cases }),
    timeoutMs: 120_000,
  });
  planned = true;
}

async function measureBuild(cli: string, staticToken: string, figures: Figures, label: string) {
  const port = await freePort();
  const [path, flags] = cli.split('|');
  const floor = FLOORS[cli];
  if (floor && !planned) throw new Error(`${cli}: list a datagate build before the floors`);
  const v8Args = INSTRUCTIONS ? ['--no-concurrent-recompilation', ...NODE_ARGS] : NODE_ARGS;
  const nodeArgs = floor
    ? [...v8Args, floor[0]!, planFile, ...floor.slice(1)]
    : [...v8Args, ...(flags ? flags.split(' ') : []), path!, 'serve'];
  const serverEnvOf = async () =>
    floor
      ? { ...env, DATABASE_URL: url, PORT: String(port), POOL_MAX: '10', HOST: '127.0.0.1' }
      : await serverEnv(port);
  const server = INSTRUCTIONS
    ? start(
        [
          ...CALLGRIND,
          `--callgrind-out-file=${join(dir, `${label}.callgrind`)}`,
          process.execPath,
          ...nodeArgs,
        ],
        {
          env: await serverEnvOf(),
          logFile: join(dir, `${label}.log`),
          command: 'valgrind',
        },
      )
    : start(nodeArgs, { env: await serverEnvOf(), logFile: join(dir, `${label}.log`) });
  const base = `http://127.0.0.1:${port}`;
  await waitFor(
    `${base}${floor ? `/${CASES[0]!.name}` : '/server/health'}`,
    server,
    INSTRUCTIONS ? 600_000 : 60_000,
  );
  const rssIdle = rssMb(server.pid) ?? Number.NaN;
  figureOf(figures, 'idle_rss').rss.push(rssIdle);
  if (floor) {
    for (const probe of CASES)
      await measureCase(server, { url: `${base}/${probe.name}`, connections: 16 }, figures, label, probe);
    await stop(server, 15_000);
    return;
  }
  const role = await withClient(
    url,
    async (c) => (await c.query(`select id from datagate_roles where name = 'Operator'`)).rows[0].id,
  );
  const existing = await withClient(
    url,
    async (c) => (await c.query('select count(*)::int as n from datagate_permissions')).rows[0].n,
  );
  if (existing === 0)
    await apiCall('POST', `${base}/permissions`, staticToken, {
      role,
      collection: 'cargos',
      action: 'read',
      permissions: { is_deleted: { _eq: false } },
      fields: ['id', 'date_created', 'description', 'temperature'],
    });
  const jwt = (
    JSON.parse(await apiCall('POST', `${base}/auth/login`, undefined, OPERATOR)) as { access_token: string }
  ).access_token;
  const visible = await withClient(
    url,
    async (c) =>
      (await c.query('select id from cargos where not is_deleted order by id offset 100 limit 1')).rows[0].id,
  );
  if (!planned && Object.keys(FLOORS).some((name) => builds.includes(name)))
    await planFloors(port, { static: staticToken, jwt }, visible);
  for (const probe of CASES) {
    const options = {
      url: `${base}${probe.path.replace(':visible', visible)}`,
      connections: 16,
      headers: { authorization: `Bearer ${probe.who === 'static' ? staticToken : jwt}` },
    };
    await measureCase(server, options, figures, label, probe);
  }
  await stop(server, 15_000);
}

async function measureCase(
  server: ReturnType<typeof start>,
  options: { url: string; connections: number; headers?: Record<string, string> },
  figures: Figures,
  label: string,
  probe: Case,
) {
  // After 1,000 warm-up requests a server's first case read 0.475 ms of CPU where it cost 0.323 once warm
  // (bench/NOTES.md §7.6).
  await autocannon({
    ...options,
    amount: INSTRUCTIONS ? INSTRUCTION_WARMUP : Math.max(WARMUP_REQUESTS, REQUESTS / 4),
  });
  let rssMax = 0;
  const sampler = setInterval(() => {
    rssMax = Math.max(rssMax, rssMb(server.pid) ?? 0);
  }, 50);
  if (INSTRUCTIONS) startCounting(server.pid!);
  const before = INSTRUCTIONS ? 0 : (cpuTimeMs(server.pid) ?? Number.NaN);
  const result = await autocannon({ ...options, amount: REQUESTS });
  const parts = INSTRUCTIONS
    ? stopCounting(server.pid!)
    : { '': (cpuTimeMs(server.pid) ?? Number.NaN) - before };
  clearInterval(sampler);
  if (result.non2xx + result.errors > 0)
    log(`${label} ${probe.name}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  for (const [part, amount] of Object.entries(parts)) {
    const entry = figureOf(figures, `${probe.name}${part}`);
    entry.cpu.push(amount / result.requests.total);
    entry.rss.push(rssMax);
  }
}

/** Counting starts at the measured requests: start-up and warm-up run uninstrumented (still under valgrind). */
const VGDB_PREFIX = `--vgdb-prefix=${join(dir, 'vgdb')}`;
const CALLGRIND = ['--tool=callgrind', '--instr-atstart=no', VGDB_PREFIX];
// valgrind names its control pipes after $USER and $HOST, and the server's HOST is its listening address.
const control = (pid: number, order: string) =>
  execFileSync('callgrind_control', [VGDB_PREFIX, order, String(pid)], {
    env: { ...env, HOST: '127.0.0.1' },
  });

function startCounting(pid: number): void {
  control(pid, '--zero');
  control(pid, '--instr=on');
}

/** The parts of a count besides the total, as row suffixes, by the functions' names in callgrind's annotation. */
const COUNTED_APART: ReadonlyArray<readonly [string, RegExp]> = [
  [' (JIT compilers)', /compiler::|maglev|Turbofan|Pipeline/i],
  [
    ' (GC)',
    /Marking|Sweeper|Scavenge|MarkCompact|Evacuat|Heap::|GCTracer|MemoryChunk|RememberedSet|SlotSet|Compactor|SizeFromMap|BodyDescriptor|RecordWrite/,
  ],
];
const THE_REST = ' (the rest)';

/**
 * Millions of instructions since `startCounting`, from the dump callgrind writes on request: the total (row
 * suffix ''), and apart what the JIT compilers and the garbage collector ran and the rest (each function's own
 * count, by its name).
 */
function stopCounting(pid: number): Record<string, number> {
  control(pid, '--instr=off');
  const dumps = () =>
    readdirSync(dir)
      .filter((name) => name.includes('.callgrind'))
      .sort();
  const seen = new Set(dumps());
  control(pid, '--dump');
  const fresh = dumps().find((name) => !seen.has(name));
  if (!fresh) throw new Error('callgrind wrote no dump');
  const total = /^totals: (\d+)/m.exec(readFileSync(join(dir, fresh), 'utf8'));
  if (!total) throw new Error(`no total in ${fresh}`);
  const parts: Record<string, number> = { '': Number(total[1]) / 1e6, [THE_REST]: 0 };
  for (const [part] of COUNTED_APART) parts[part] = 0;
  for (const [name, count] of instructionsByFunction(join(dir, fresh), { inclusive: false })) {
    const part = COUNTED_APART.find(([, pattern]) => pattern.test(name))?.[0] ?? THE_REST;
    parts[part]! += count / 1e6;
  }
  return parts;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

try {
  const { staticToken } = await seed(builds[0]!.split('|')[0]!);
  const results = builds.map(() => ({}) as Figures);
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const [i, cli] of builds.entries()) {
      log(`round ${round + 1}: ${cli}`);
      await measureBuild(cli, staticToken, results[i]!, `${i}-${round}`);
    }
  }
  const parts = INSTRUCTIONS ? ['', THE_REST, ...COUNTED_APART.map(([part]) => part)] : [''];
  const names = ['idle_rss', ...CASES.flatMap((c) => parts.map((part) => `${c.name}${part}`))];
  const unit = INSTRUCTIONS ? 'M instructions/req' : 'CPU ms/req';
  console.log(`| case | ${builds.map((b) => `${b} ${unit} (runs) | peak RSS MB`).join(' | ')} |`);
  console.log(`|---|${builds.map(() => '---|---|').join('')}`);
  for (const name of names) {
    const cells = results.map((figures) => {
      const f = figures[name];
      if (!f) return '– | –';
      const cpu = f.cpu.length
        ? `**${median(f.cpu).toFixed(3)}** (${f.cpu.map((v) => v.toFixed(3)).join(', ')})`
        : '–';
      return `${cpu} | ${median(f.rss).toFixed(0)} (${f.rss.map((v) => v.toFixed(0)).join(', ')})`;
    });
    console.log(`| ${name} | ${cells.join(' | ')} |`);
  }
} finally {
  await stopAll(3000);
  if (env.PROBE_KEEP_DB !== '1')
    await admin((c) => c.query(`drop database if exists ${quoteId(DB)} with (force)`));
}
