// `make bench`: datagate against its floor (bare node:http + pg running the same SQL) and pgbench, on a
// throwaway database per row count. See bench/README.md. Run: node --import tsx bench/run.ts

import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import autocannon, { type AutocannonOptions } from 'autocannon';
import type pg from 'pg';
import {
  assertLoopback,
  BUILT_CLI,
  ChildProcesses,
  cpuTimeMs,
  createOperator,
  databaseUrl,
  freePort,
  productionServerEnv,
  quoteId,
  rssMb,
  treeTotal,
  waitFor,
  withClient,
} from '../scripts/local-harness.ts';
import type { PlanCase } from './plan.ts';
import { benchReplicaReads, stopReplicaPairs } from './replica-case.ts';
import {
  benchRevisions,
  median,
  onOff,
  type RevisionsResult,
  type SettingFigures,
  WRITE_CASES,
} from './revisions-cases.ts';

const ROOT = new URL('..', import.meta.url).pathname;
const env = process.env;
const ROWS = (env.BENCH_ROWS ?? '10000,1000000').split(',').map((n) => Number(n.trim()));
const DURATION = Number(env.BENCH_DURATION ?? 10);
const WARMUP = Number(env.BENCH_WARMUP ?? 2);
const CONNECTIONS = Number(env.BENCH_CONNECTIONS ?? 16);
const ONLY = env.BENCH_CASES ? new Set(env.BENCH_CASES.split(',').map((c) => c.trim())) : null;
/** Unset: datagate's production default (config/default.yaml: info, one access-log line per request). */
const LOG_LEVEL = env.BENCH_LOG_LEVEL;
const CPU_PROF = env.BENCH_CPU_PROF === '1';
/** The write cases' rounds (a slice with revisions off and one on) and requests per slice (bench/revisions-cases.ts). */
const WRITE_ROUNDS = Number(env.BENCH_WRITE_ROUNDS ?? 10);
const WRITE_SLICE = Number(env.BENCH_WRITE_SLICE ?? 200);
/** The deep page read against page 1 (of 100 items); needs that many pages of rows. */
const DEEP_PAGE = Number(env.BENCH_DEEP_PAGE ?? 5000);
/** The server the throwaway databases are created on; its own database is never written. */
const SERVER_URL = env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const POOL_MAX = 10; // pg's default; datagate passes MikroORM no pool size (mikro-orm.config.ts)
/** The built CLI, as production runs it: the sources through tsx cost ~70 MB more RSS. */
const CLI = BUILT_CLI;

for (const n of ROWS) if (!Number.isSafeInteger(n) || n < 1) throw new Error(`BENCH_ROWS: bad count ${n}`);
if (!(DURATION > 0) || !(WARMUP >= 0) || !(CONNECTIONS > 0)) throw new Error('bad BENCH_* duration');
if (!Number.isSafeInteger(DEEP_PAGE) || DEEP_PAGE < 2) throw new Error('BENCH_DEEP_PAGE: a page number ≥ 2');
if (
  !Number.isSafeInteger(WRITE_ROUNDS) ||
  WRITE_ROUNDS < 1 ||
  !Number.isSafeInteger(WRITE_SLICE) ||
  WRITE_SLICE < 1
)
  throw new Error('BENCH_WRITE_ROUNDS, BENCH_WRITE_SLICE: counts ≥ 1');

/** Every bench server's variables on top of the production environment. */
const SERVER_EXTRA: NodeJS.ProcessEnv = {
  ACCESS_TOKEN_TTL: '1d', // the default 15 min would expire inside a long run
  // The login cases log one user in over 16–32 connections at once. Attempts count against the
  // e-mail+address budget while in flight (5), so the throttle would answer most of them 429: that is
  // the throttle working, not the login path this case measures.
  LOGIN_THROTTLE: 'false',
};

const ADMIN = { email: 'admin@bench.local', password: 'admin-bench-password' };
const OPERATOR = { email: 'op@bench.local', password: 'operator-bench-password' };
const OPERATOR_FIELDS = ['id', 'date_created', 'description', 'temperature'];

// ---------------------------------------------------------------- processes and clean-up

const { start, run, stop, stopAll } = new ChildProcesses(ROOT);
const databases = new Set<string>();
let workDir: string | null = null;

function log(message: string): void {
  process.stderr.write(`[bench] ${message}\n`);
}

async function cleanUp(): Promise<void> {
  await stopAll(3000);
  await stopReplicaPairs();
  for (const name of databases) {
    try {
      await admin(async (client) => client.query(`drop database if exists ${quoteId(name)} with (force)`));
      databases.delete(name);
    } catch (error) {
      log(`could not drop database ${name}: ${(error as Error).message}`);
    }
  }
  if (workDir) rmSync(workDir, { recursive: true, force: true });
}

let interrupted = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (interrupted) process.exit(130);
    interrupted = true;
    log(`${signal}: stopping children and dropping the bench databases`);
    cleanUp().finally(() => process.exit(130));
  });
}

// ---------------------------------------------------------------- database

const admin = <T>(work: (client: pg.Client) => Promise<T>) => withClient(SERVER_URL, work, 'datagate-bench');

// ---------------------------------------------------------------- HTTP helpers

async function http(
  method: string,
  url: string,
  options: { token?: string; body?: unknown } = {},
): Promise<{ status: number; text: string; headers: Headers }> {
  const response = await fetch(url, {
    method,
    headers: {
      ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
      ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
    signal: AbortSignal.timeout(30_000),
  });
  return { status: response.status, text: await response.text(), headers: response.headers };
}

async function expectOk(method: string, url: string, options: { token?: string; body?: unknown } = {}) {
  const answer = await http(method, url, options);
  if (answer.status >= 300)
    throw new Error(`${method} ${url} → ${answer.status} ${answer.text.slice(0, 300)}`);
  return answer.text;
}

// ---------------------------------------------------------------- measuring

type Load = {
  path: string;
  method?: 'GET' | 'POST' | 'PATCH';
  token?: string;
  body?: string;
  connections?: number;
};
type Measured = {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
  /** How many of each non-2xx status (e.g. 503 SERVICE_BUSY when every pooled connection stays busy). */
  statuses: Record<number, number>;
  total: number;
  rssMaxMb: number | null;
  /** Server CPU (user + system) per completed request, from /proc/<pid>/stat over the measured run. */
  cpuMs: number | null;
};

function cannonOptions(base: string, load: Load, duration: number): AutocannonOptions {
  return {
    url: `${base}${load.path}`,
    connections: load.connections ?? CONNECTIONS,
    duration,
    method: load.method ?? 'GET',
    headers: {
      ...(load.token ? { authorization: `Bearer ${load.token}` } : {}),
      ...(load.body ? { 'content-type': 'application/json' } : {}),
    },
    ...(load.body ? { body: load.body } : {}),
    timeout: 30,
  };
}

/**
 * Warm-up (discarded), then the measured run while sampling the server's RSS every 100 ms. RSS and CPU are
 * those of the server's whole process tree: its workers too, with `http.workers`.
 */
async function measure(base: string, load: Load, pid: number | undefined): Promise<Measured> {
  if (WARMUP > 0) await autocannon(cannonOptions(base, load, WARMUP));
  const treeRss = () => treeTotal(pid, rssMb);
  const treeCpu = () => treeTotal(pid, cpuTimeMs);
  let rssMax = treeRss();
  const sampler = setInterval(() => {
    const now = treeRss();
    if (now !== null && (rssMax === null || now > rssMax)) rssMax = now;
  }, 100);
  try {
    // autocannon's own histogram has 1 ms resolution: too coarse for sub-ms reads. Its 'response' event
    // carries the hrtime duration, so 2xx latencies are kept here (bounded) for exact percentiles.
    const latencies: number[] = [];
    const statuses: Record<number, number> = {};
    const cpuBefore = treeCpu();
    const running = autocannon(cannonOptions(base, load, DURATION)).on('response', (_c, status, _b, ms) => {
      if (status < 300) {
        if (latencies.length < 5_000_000) latencies.push(ms);
      } else {
        statuses[status] = (statuses[status] ?? 0) + 1;
      }
    });
    const result = await running;
    const cpuAfter = treeCpu();
    latencies.sort((a, b) => a - b);
    const percentile = (p: number) =>
      latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))] ?? Number.NaN;
    return {
      rps: result.requests.average,
      p50: percentile(0.5),
      p99: percentile(0.99),
      errors: result.errors + result.timeouts,
      non2xx: result.non2xx,
      statuses,
      total: result.requests.total,
      rssMaxMb: rssMax,
      cpuMs:
        cpuBefore === null || cpuAfter === null || result.requests.total === 0
          ? null
          : (cpuAfter - cpuBefore) / result.requests.total,
    };
  } finally {
    clearInterval(sampler);
  }
}

/** CPU time so far of each PostgreSQL backend connected to `database`, by pid (from /proc: a local server). */
async function backendsCpuMs(database: string): Promise<Map<number, number>> {
  const { rows } = await admin((client) =>
    client.query<{ pid: number }>('select pid from pg_stat_activity where datname = $1', [database]),
  );
  const spent = new Map<number, number>();
  for (const { pid } of rows) {
    const ms = cpuTimeMs(pid);
    if (ms !== null) spent.set(pid, ms);
  }
  return spent;
}

type PgbenchResult = { tps: number; latencyMs: number; failed: number };

/** The statement with `$n` → `:pn` (pgbench's extended protocol sends them as text parameters, as pg does). */
async function pgbench(
  url: string,
  statement: PlanCase,
  file: string,
  connections = CONNECTIONS,
): Promise<PgbenchResult> {
  writeFileSync(file, `${statement.sql.replace(/\$(\d+)/g, ':p$1')};\n`);
  const target = new URL(url);
  const variables = statement.parameters.flatMap((value, i) => ['-D', `p${i + 1}=${String(value)}`]);
  const args = [
    '-n',
    '-c',
    String(connections),
    '-j',
    '2',
    '-T',
    String(Math.max(1, Math.round(DURATION))),
    '-M',
    'extended',
    '-f',
    file,
    ...variables,
    '-h',
    target.hostname,
    '-p',
    target.port || '5432',
    '-U',
    decodeURIComponent(target.username || 'postgres'),
    decodeURIComponent(target.pathname.slice(1)),
  ];
  const output = await run('pgbench', args, {
    env: { ...env, ...(target.password ? { PGPASSWORD: decodeURIComponent(target.password) } : {}) },
    timeoutMs: (DURATION + 60) * 1000,
  });
  const number = (pattern: RegExp) => Number(output.match(pattern)?.[1] ?? Number.NaN);
  return {
    tps: number(/tps = ([\d.]+)/),
    latencyMs: number(/latency average = ([\d.]+) ms/),
    failed: number(/number of failed transactions: (\d+)/) || 0,
  };
}

// ---------------------------------------------------------------- one row count

type Row = {
  name: string;
  datagate: Measured | null;
  floor?: Measured;
  /** The same floor running its statements as named prepared statements (floor-server.mjs `prepared`). */
  floorPrepared?: Measured;
  /** Koa + @koa/router + pg running the same prepared statement (bench/koa-floor.mjs): the framework alone. */
  koa?: Measured;
  floorLabel?: string;
  floorRps?: number;
  pgbench?: PgbenchResult;
  note?: string;
};

type SizeReport = {
  rows: number;
  table: Row[];
  sanity: string[];
  plan: PlanCase[];
  extra: string[];
  revisions: RevisionsResult | null;
};

/** `list_role_jwt` served by `http.workers=2` processes; read against `list_role_jwt`, which runs with it. */
const WORKERS_CASE = 'list_role_jwt_workers2';
const LIST_C64 = 'list_role_jwt_c64';
/** Issue 14's target cases, also run against the Koa server: what the framework alone reaches. */
const KOA_CASES = new Set(['list_admin_static', 'list_role_jwt', 'get_one', 'filter_sort_indexed']);
const COUNT_ONLY = 'count_only';
const COUNT_ESTIMATED = 'count_estimated';
/** Deep pages: page DEEP_PAGE of PAGE_SIZE against page 1, by offset and by keyset cursor. */
const PAGE_SIZE = 100;
const DEEP_CASES = ['page_1', 'page_deep', 'page_deep_cursor'];
/**
 * Relational reads (issue 15) on the sample's cargos → shipments → customers, admin static token: each is
 * probed first, so a server or sample without relations skips them with a line in the report.
 */
const RELATIONAL_READS = [
  {
    name: 'list_m2o',
    path: '/items/cargos?limit=100&fields=id,description,temperature,shipment.number,shipment.customer.name',
    note: 'list 100 with a many-to-one expansion (two hops), admin static token',
  },
  {
    name: 'list_o2m_deep_limit',
    path: '/items/shipments?limit=100&fields=id,number,cargos.id,cargos.temperature&deep[cargos][_limit]=10',
    note: 'list 100 shipments, each with its first 10 cargos (one-to-many, deep _limit=10), admin static token',
  },
];
/** The reads served by one datagate process (RSS target: each under 200 MB). */
const READ_CASES = new Set([
  'list_admin_static',
  'list_role_jwt',
  LIST_C64,
  'get_one',
  'filter_sort',
  'filter_sort_indexed',
  'count',
  COUNT_ONLY,
  COUNT_ESTIMATED,
  ...DEEP_CASES,
  ...RELATIONAL_READS.map(({ name }) => name),
  'list_replica',
]);

type Read = {
  name: string;
  path: string;
  token: string;
  /** The plan may fail to build it (a server without the feature): then datagate alone is measured. */
  optional?: boolean;
  /** No floor statement exists for it. */
  datagateOnly?: boolean;
};

const wanted = (name: string) =>
  ONLY === null || ONLY.has(name) || (name === 'list_role_jwt' && ONLY.has(WORKERS_CASE));

async function benchSize(rows: number): Promise<SizeReport> {
  const name = `datagate_bench_${process.pid}_${rows}`;
  const url = databaseUrl(SERVER_URL, name);
  const dir = mkdtempSync(join(workDir!, `${rows}-`));
  log(`${rows.toLocaleString('en')} rows: database ${name}`);
  await admin((client) => client.query(`create database ${quoteId(name)}`));
  databases.add(name);

  const port = await freePort();
  const serverEnv = productionServerEnv({
    databaseUrl: url,
    port,
    admin: ADMIN,
    logLevel: LOG_LEVEL,
    extra: SERVER_EXTRA,
  });

  // Set-up through datagate's own CLI.
  const cli = (...args: string[]) =>
    run(process.execPath, [CLI, ...args], { env: serverEnv, timeoutMs: 900_000 });
  const started = performance.now();
  await cli('migrate');
  await cli('bootstrap');
  let t = performance.now();
  await cli('sample', 'cargos', '--rows', String(rows));
  log(`seeded ${rows.toLocaleString('en')} rows in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  await createOperator(cli, OPERATOR);
  const staticToken = randomBytes(32).toString('hex');
  await cli('users', 'token', '--email', ADMIN.email, '--token', staticToken);
  t = performance.now();
  await withClient(url, (client) => client.query('vacuum analyze cargos'));
  log(
    `vacuum analyze ${((performance.now() - t) / 1000).toFixed(1)} s; set-up ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
  // The write cases copy the seeded database for each measurement; a template must have no connections,
  // so it is copied once now, before any server connects to the seeded one.
  const writeCases = WRITE_CASES.filter(wanted);
  const writesTemplate = `${name}_writes`;
  if (writeCases.length > 0) await copyDatabase(writesTemplate, name);

  const serverArgs = [
    ...(CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${join(ROOT, 'bench/results/profiles')}`] : []),
    CLI,
    'serve',
  ];
  const server = start(serverArgs, { env: serverEnv, logFile: join(dir, 'datagate.log') });
  const base = `http://127.0.0.1:${port}`;
  await waitFor(`${base}/server/health`, server);
  const rssIdle = rssMb(server.pid);

  const role = await adminQuery(url, `select id from datagate_roles where name = 'Operator'`);
  await expectOk('POST', `${base}/permissions`, {
    token: staticToken,
    body: {
      role,
      collection: 'cargos',
      action: 'read',
      permissions: { is_deleted: { _eq: false } },
      fields: OPERATOR_FIELDS,
    },
  });
  const login = JSON.stringify(OPERATOR);
  const jwt = (
    JSON.parse(await expectOk('POST', `${base}/auth/login`, { body: OPERATOR })) as { access_token: string }
  ).access_token;
  const visibleId = await adminQuery(
    url,
    `select id from cargos where not is_deleted order by id offset ${Math.floor(rows / 2)} limit 1`,
  );

  const filterSort = '/items/cargos?filter[temperature][_gt]=10&sort=-date_created&limit=50';
  const reads: Read[] = [
    { name: 'list_admin_static', path: '/items/cargos?limit=100', token: staticToken },
    { name: 'list_role_jwt', path: '/items/cargos?limit=100', token: jwt },
    { name: 'get_one', path: `/items/cargos/${visibleId}`, token: jwt },
    { name: 'filter_sort', path: filterSort, token: jwt },
    { name: 'count', path: '/items/cargos?limit=100&meta=filter_count', token: jwt },
    // The count alone (an empty page), so that the estimate is compared with counting, not with a page; by
    // the admin, as the estimate: under a row rule an estimate is an exact count (decision 0056).
    { name: COUNT_ONLY, path: '/items/cargos?limit=0&meta=filter_count', token: staticToken },
  ];
  const skipped: string[] = [];
  const estimated = '/items/cargos?limit=0&meta=estimated_filter_count';
  if (wanted(COUNT_ESTIMATED)) {
    const probe = await http('GET', `${base}${estimated}`, { token: staticToken });
    if (probe.status === 200 && probe.headers.has('x-estimated-filter-count')) {
      // The estimate is a second, planner-only statement the floor's plan does not hold: datagate only.
      reads.push({ name: COUNT_ESTIMATED, path: estimated, token: staticToken, datagateOnly: true });
    } else {
      skipped.push(
        `${COUNT_ESTIMATED}: skipped — this server does not answer meta=estimated_filter_count (${probe.status})`,
      );
    }
  }
  if (DEEP_CASES.some(wanted)) {
    if (rows < DEEP_PAGE * PAGE_SIZE) {
      skipped.push(
        `${DEEP_CASES.join(', ')}: skipped — page ${DEEP_PAGE.toLocaleString('en')} of ${PAGE_SIZE} needs ≥ ${(DEEP_PAGE * PAGE_SIZE).toLocaleString('en')} rows`,
      );
    } else {
      const page = (n: number) => `/items/cargos?limit=${PAGE_SIZE}&page=${n}`;
      reads.push({ name: 'page_1', path: page(1), token: staticToken });
      reads.push({ name: 'page_deep', path: page(DEEP_PAGE), token: staticToken });
      // The cursor that leads to the deep page: the `next` of the page before it.
      const before = await http('GET', `${base}${page(DEEP_PAGE - 1)}&meta=next`, { token: staticToken });
      const cursor = before.status === 200 ? before.headers.get('x-next-cursor') : null;
      if (cursor) {
        reads.push({
          name: 'page_deep_cursor',
          path: `/items/cargos?limit=${PAGE_SIZE}&after=${encodeURIComponent(cursor)}`,
          token: staticToken,
          optional: true,
        });
      } else {
        skipped.push(
          `page_deep_cursor: skipped — this server answers no keyset cursor for meta=next (${before.status}${before.status === 200 ? ', no X-Next-Cursor' : ''})`,
        );
      }
    }
  }
  for (const { name: caseName, path } of RELATIONAL_READS) {
    if (!wanted(caseName)) continue;
    const probe = await http('GET', `${base}${path}`, { token: staticToken });
    if (probe.status === 200) reads.push({ name: caseName, path, token: staticToken, optional: true });
    else skipped.push(`${caseName}: skipped — this server or sample does not answer it (${probe.status})`);
  }
  for (const line of skipped) log(line);

  // The floor's statements, built by datagate's own code (bench/plan.ts).
  const planFile = join(dir, 'plan.json');
  await run(process.execPath, ['--import', 'tsx', 'bench/plan.ts', planFile], {
    env: serverEnv,
    input: JSON.stringify({ cases: reads.filter((r) => !r.datagateOnly) }),
    timeoutMs: 120_000,
  });
  const planned = JSON.parse(readFileSync(planFile, 'utf8')) as { cases: PlanCase[]; skipped?: string[] };
  const plan = planned.cases;
  for (const line of planned.skipped ?? []) skipped.push(`floor for ${line}`);
  const statement = (caseName: string) => plan.find((c) => c.name === caseName);

  const floorPort = await freePort();
  const floor = start(['bench/floor-server.mjs', planFile], {
    env: { ...env, DATABASE_URL: url, PORT: String(floorPort), POOL_MAX: String(POOL_MAX) },
    logFile: join(dir, 'floor.log'),
  });
  const floorBase = `http://127.0.0.1:${floorPort}`;
  await waitFor(`${floorBase}/`, floor);
  const preparedPort = await freePort();
  const floorPrepared = start(['bench/floor-server.mjs', planFile, 'prepared'], {
    env: { ...env, DATABASE_URL: url, PORT: String(preparedPort), POOL_MAX: String(POOL_MAX) },
    logFile: join(dir, 'floor-prepared.log'),
  });
  const preparedBase = `http://127.0.0.1:${preparedPort}`;
  await waitFor(`${preparedBase}/`, floorPrepared);
  const koaPort = await freePort();
  const koaFloor = start(['bench/koa-floor.mjs', planFile], {
    env: { ...env, DATABASE_URL: url, PORT: String(koaPort), POOL_MAX: String(POOL_MAX) },
    logFile: join(dir, 'koa-floor.log'),
  });
  const koaBase = `http://127.0.0.1:${koaPort}`;
  await waitFor(`${koaBase}/hello`, koaFloor);

  // Same bytes from all four: the floors really run what datagate runs.
  const sanity: string[] = [];
  for (const read of reads) {
    if (!statement(read.name)) continue;
    const [ours, theirs, prepared, koa] = await Promise.all([
      http('GET', `${base}${read.path}`, { token: read.token }),
      http('GET', `${floorBase}/${read.name}`),
      http('GET', `${preparedBase}/${read.name}`),
      http('GET', `${koaBase}/${read.name}`),
    ]);
    const same =
      [ours, theirs, prepared, koa].every((answer) => answer.status === 200) &&
      ours.text === theirs.text &&
      ours.text === prepared.text &&
      ours.text === koa.text;
    const count = ours.text.startsWith('[')
      ? `${(JSON.parse(ours.text) as unknown[]).length} items`
      : 'one item';
    sanity.push(
      `${read.name}: datagate ${ours.status}, floor ${theirs.status}, prepared floor ${prepared.status}, Koa server ${koa.status}, ${count}, bodies ${same ? 'identical' : 'DIFFER'}`,
    );
    if (!same) log(`WARNING ${sanity.at(-1)}`);
  }
  sanity.push(...skipped);

  const table: Row[] = [];
  const extra: string[] = [];
  const byName = new Map(reads.map((r) => [r.name, r]));
  const readCase = async (caseName: string, planName: string, note?: string, connections = CONNECTIONS) => {
    if (!wanted(caseName)) return;
    const read = byName.get(planName);
    if (!read) return; // skipped above, with its line in the report
    log(`${rows}: ${caseName} — datagate`);
    const datagate = await measure(base, { path: read.path, token: read.token, connections }, server.pid);
    const planCase = statement(planName);
    if (!planCase) {
      table.push({ name: caseName, datagate, note });
      return;
    }
    log(`${rows}: ${caseName} — floor`);
    const floorResult = await measure(floorBase, { path: `/${planName}`, connections }, floor.pid);
    log(`${rows}: ${caseName} — prepared floor`);
    const preparedResult = await measure(
      preparedBase,
      { path: `/${planName}`, connections },
      floorPrepared.pid,
    );
    let koa: Measured | undefined;
    if (KOA_CASES.has(caseName)) {
      log(`${rows}: ${caseName} — Koa server`);
      koa = await measure(koaBase, { path: `/${planName}`, connections }, koaFloor.pid);
    }
    log(`${rows}: ${caseName} — pgbench`);
    const bench = await pgbench(url, planCase, join(dir, `${caseName}.sql`), connections);
    table.push({
      name: caseName,
      datagate,
      floor: floorResult,
      floorPrepared: preparedResult,
      koa,
      floorLabel: 'floor',
      pgbench: bench,
      note,
    });
  };

  await readCase('list_admin_static', 'list_admin_static');
  await readCase('list_role_jwt', 'list_role_jwt');
  await readCase(LIST_C64, 'list_role_jwt', 'list_role_jwt with 64 connections (autocannon and pgbench)', 64);
  await readCase('get_one', 'get_one');
  await readCase('filter_sort', 'filter_sort', 'no index on date_created');
  if (wanted('filter_sort_indexed')) {
    t = performance.now();
    await withClient(url, async (client) => {
      await client.query('create index bench_cargos_date_created on cargos (date_created)');
      await client.query('analyze cargos');
    });
    log(`index on date_created: ${((performance.now() - t) / 1000).toFixed(1)} s`);
  }
  await readCase('filter_sort_indexed', 'filter_sort', 'index on date_created');
  await readCase('count', 'count', 'list_role_jwt + meta=filter_count');
  await readCase(
    COUNT_ONLY,
    COUNT_ONLY,
    'limit=0&meta=filter_count, admin static token: the exact count alone',
  );
  await readCase(
    COUNT_ESTIMATED,
    COUNT_ESTIMATED,
    "limit=0&meta=estimated_filter_count, admin static token (under a row rule an estimate is the exact count, decision 0056): the planner's estimate alone (datagate only: the floor has no estimate statement)",
  );
  await readCase('page_1', 'page_1', `GET /items/cargos?limit=${PAGE_SIZE}&page=1, admin static token`);
  await readCase(
    'page_deep',
    'page_deep',
    `page ${DEEP_PAGE.toLocaleString('en')} by offset (limit=${PAGE_SIZE}&page=${DEEP_PAGE})`,
  );
  await readCase(
    'page_deep_cursor',
    'page_deep_cursor',
    `page ${DEEP_PAGE.toLocaleString('en')} by keyset cursor (after=<the next of page ${DEEP_PAGE - 1}>)`,
  );
  for (const { name: caseName, note } of RELATIONAL_READS) await readCase(caseName, caseName, note);
  if (wanted('list_replica')) {
    const {
      replica,
      primaryOnly,
      sanity: where,
    } = await benchReplicaReads({
      rows,
      dir,
      cli: CLI,
      admin: ADMIN,
      logLevel: LOG_LEVEL,
      extra: SERVER_EXTRA,
      start,
      stop,
      run,
      measure,
      log,
    });
    table.push({
      name: 'list_replica',
      datagate: replica,
      floorLabel: 'primary only',
      floorRps: primaryOnly.rps,
      note: `list_admin_static on a throwaway primary + hot standby, reads through the standby; floor = the same server reading from the primary alone (p50 ${fmt(primaryOnly.p50, 2)} ms, p99 ${fmt(primaryOnly.p99, 2)} ms, CPU ${fmt(primaryOnly.cpuMs, 3)} ms/req)`,
    });
    sanity.push(where);
  }

  const jwtRead = byName.get('list_role_jwt')!;
  if (wanted(WORKERS_CASE)) {
    log(`${rows}: ${WORKERS_CASE} — datagate with http.workers=2`);
    const workersPort = await freePort();
    const logFile = join(dir, 'datagate-workers.log');
    const workers = start([CLI, 'serve'], {
      env: { ...serverEnv, PORT: String(workersPort), HTTP_WORKERS: '2' },
      logFile,
    });
    await waitForLine(logFile, /listening on .* \(2 workers\)/, workers);
    const datagate = await measure(
      `http://127.0.0.1:${workersPort}`,
      { path: jwtRead.path, token: jwtRead.token },
      workers.pid,
    );
    await stop(workers, 15_000);
    const single = table.find((r) => r.name === 'list_role_jwt');
    const vsSingle = single?.datagate
      ? `: ${(datagate.rps / single.datagate.rps).toFixed(2)}× the single process's req/s, p99 ${(datagate.p99 / single.datagate.p99).toFixed(2)}×, CPU/req ${((datagate.cpuMs ?? Number.NaN) / (single.datagate.cpuMs ?? Number.NaN)).toFixed(2)}×`
      : '';
    table.push({
      name: WORKERS_CASE,
      datagate,
      floor: single?.floor,
      pgbench: single?.pgbench,
      note: `list_role_jwt on http.workers=2 (RSS and CPU: the primary and both workers; floor and pgbench: list_role_jwt's)${vsSingle}`,
    });
  }
  if (wanted('login')) {
    log(`${rows}: login`);
    const datagate = await measure(base, { path: '/auth/login', method: 'POST', body: login }, server.pid);
    const raw = JSON.parse(
      await run(process.execPath, ['bench/argon2-raw.mjs', String(DURATION)], {
        timeoutMs: (DURATION + 60) * 1000,
      }),
    ) as { verifiesPerSecond: number };
    table.push({
      name: 'login',
      datagate,
      floorLabel: 'argon2 raw',
      floorRps: raw.verifiesPerSecond,
      note: 'floor = raw argon2id verify/s, same cost and concurrency bound as the server',
    });
  }
  if (wanted('login_storm')) {
    log(`${rows}: login_storm (list_role_jwt under 32 concurrent logins)`);
    const storm = autocannon(
      cannonOptions(
        base,
        { path: '/auth/login', method: 'POST', body: login, connections: 32 },
        WARMUP + DURATION + 1,
      ),
    );
    const datagate = await measure(base, { path: jwtRead.path, token: jwtRead.token }, server.pid);
    const logins = await storm;
    const calm = table.find((r) => r.name === 'list_role_jwt')?.datagate;
    const ratio = calm ? ` — p99 ${(datagate.p99 / calm.p99).toFixed(2)}× list_role_jwt's` : '';
    table.push({
      name: 'login_storm',
      datagate,
      note: `list_role_jwt during 32-connection logins (${logins.requests.average.toFixed(0)} logins/s, ${logins.non2xx + logins.errors} failed)${ratio}`,
    });
  }
  extra.push(`datagate RSS after start: ${rssIdle?.toFixed(0)} MB`);
  extra.push(
    `final RSS: datagate ${rssMb(server.pid)?.toFixed(0)} MB, floor ${rssMb(floor.pid)?.toFixed(0)} MB, prepared floor ${rssMb(floorPrepared.pid)?.toFixed(0)} MB`,
  );

  await stop(floor);
  await stop(floorPrepared);
  await stop(koaFloor);
  await stop(server, 15_000); // --cpu-prof writes its profile at exit
  if (server.exitCode !== 0 && server.exitCode !== null) {
    log(`datagate exited ${server.exitCode}; its log: ${join(dir, 'datagate.log')}`);
  }
  const serverLog = readFileSync(join(dir, 'datagate.log'), 'utf8');
  const problems = serverLog.split('\n').filter((line) => /"level":(50|60)/.test(line));
  if (problems.length > 0)
    extra.push(`datagate logged ${problems.length} error lines, first: ${problems[0]!.slice(0, 300)}`);
  await dropDatabase(name);

  // The write cases last, each measurement on a server and a database copy of its own.
  let revisions: RevisionsResult | null = null;
  if (writeCases.length > 0) {
    revisions = await benchRevisions({
      template: writesTemplate,
      cases: writeCases,
      rounds: WRITE_ROUNDS,
      sliceRequests: WRITE_SLICE,
      connections: CONNECTIONS,
      dir,
      serverArgs,
      token: staticToken,
      serverEnv: (databaseUrl, port) => ({ ...serverEnv, DATABASE_URL: databaseUrl, PORT: String(port) }),
      copyDatabase,
      dropDatabase,
      start,
      stop,
      expectOk,
      backendsCpuMs,
      log: (message) => log(`${rows}: ${message}`),
    });
    await dropDatabase(writesTemplate);
    for (const { name: caseName, on } of revisions.cases) {
      table.push({
        name: caseName,
        datagate: asMeasured(on),
        note: `100 items/request, revisions on (the default) → ${(on.rps * 100).toFixed(0)} rows/s (see "Revisions on and off")`,
      });
    }
    extra.push(...revisions.problems);
  }
  return { rows, table, sanity, plan, extra, revisions };
}

/**
 * A copy of database `template`, made by copying its files (which starts with a checkpoint, so every copy
 * begins its measurement with the same WAL state), dropped at the end like the others.
 */
async function copyDatabase(name: string, template: string): Promise<string> {
  await dropDatabase(name);
  databases.add(name);
  await admin((client) =>
    client.query(`create database ${quoteId(name)} template ${quoteId(template)} strategy = file_copy`),
  );
  return databaseUrl(SERVER_URL, name);
}

async function dropDatabase(name: string): Promise<void> {
  await admin((client) => client.query(`drop database if exists ${quoteId(name)} with (force)`));
  databases.delete(name);
}

/** A write case's figures as a row of the main table. */
function asMeasured(figures: SettingFigures): Measured {
  return {
    rps: figures.rps,
    p50: figures.p50,
    p99: figures.p99,
    errors: figures.failed,
    non2xx: 0,
    statuses: figures.statuses,
    total: figures.requests,
    rssMaxMb: figures.rssMaxMb,
    cpuMs: figures.cpuMs,
  };
}

/** Polls a server's log file until `pattern` appears in it; fails early when the server exits. */
async function waitForLine(logFile: string, pattern: RegExp, child: ChildProcess, timeoutMs = 60_000) {
  const until = Date.now() + timeoutMs;
  while (!pattern.test(readFileSync(logFile, 'utf8'))) {
    if (child.exitCode !== null)
      throw new Error(`the server exited (${child.exitCode}); its log: ${logFile}`);
    if (Date.now() > until) throw new Error(`${pattern} not in ${logFile} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function adminQuery(url: string, text: string): Promise<string> {
  return withClient(url, async (client) => {
    const { rows } = await client.query(text);
    const value = rows[0] && Object.values(rows[0])[0];
    if (value === undefined) throw new Error(`no row: ${text}`);
    return String(value);
  });
}

// ---------------------------------------------------------------- report

const fmt = (value: number | undefined | null, digits = 0) =>
  value === undefined || value === null || Number.isNaN(value)
    ? '–'
    : value.toLocaleString('en', { maximumFractionDigits: digits, minimumFractionDigits: digits });

/** ` (503×12, 500×1)`, or nothing when every answer was 2xx. */
function statusList(statuses: Record<number, number>): string {
  const entries = Object.entries(statuses);
  return entries.length === 0 ? '' : ` (${entries.map(([status, n]) => `${status}×${n}`).join(', ')})`;
}

function floorRps(row: Row): number | undefined {
  return row.floor?.rps ?? row.floorRps;
}

function markdownTable(report: SizeReport): string {
  const head =
    '| case | datagate req/s | p50 ms | p99 ms | floor req/s | floor p50 | floor p99 | **ratio** | prepared floor req/s | prepared p99 | **ratio to prepared** | pgbench tps | dg/pgbench | errors + non-2xx | RSS max MB (dg / floor / prepared) | CPU ms/req (dg / floor / prepared) |';
  const lines = [head, `|${' --- |'.repeat(16)}`];
  for (const row of report.table) {
    const d = row.datagate;
    const floor = floorRps(row);
    const ratio = d && floor ? d.rps / floor : undefined;
    const prepared = row.floorPrepared;
    const preparedRatio = d && prepared ? d.rps / prepared.rps : undefined;
    const also = (value: string) => (prepared ? ` / ${value}` : '');
    const label = row.floorLabel && row.floorLabel !== 'floor' ? ` (${row.floorLabel})` : '';
    lines.push(
      `| ${row.name} | ${fmt(d?.rps)} | ${fmt(d?.p50, 2)} | ${fmt(d?.p99, 2)} | ${fmt(floor)}${label} | ${fmt(row.floor?.p50, 2)} | ${fmt(row.floor?.p99, 2)} | **${fmt(ratio, 2)}** | ${fmt(prepared?.rps)} | ${fmt(prepared?.p99, 2)} | **${fmt(preparedRatio, 2)}** | ${fmt(row.pgbench?.tps)} | ${fmt(d && row.pgbench ? d.rps / row.pgbench.tps : undefined, 2)} | ${d ? `${d.errors + d.non2xx}${statusList(d.statuses)}` : '–'}${row.floor ? ` / ${row.floor.errors + row.floor.non2xx}` : ''}${also(prepared ? String(prepared.errors + prepared.non2xx) : '')} | ${fmt(d?.rssMaxMb)}${row.floor ? ` / ${fmt(row.floor.rssMaxMb)}` : ''}${also(fmt(prepared?.rssMaxMb))} | ${fmt(d?.cpuMs, 3)}${row.floor ? ` / ${fmt(row.floor.cpuMs, 3)}` : ''}${also(fmt(prepared?.cpuMs, 3))} |`,
    );
  }
  return lines.join('\n');
}

function targets(report: SizeReport): string[] {
  const out: string[] = [];
  const row = (name: string) => report.table.find((r) => r.name === name);
  const check = (ok: boolean, text: string) => out.push(`- ${ok ? '✅' : '❌'} ${text}`);
  for (const name of ['list_admin_static', 'list_role_jwt', 'get_one']) {
    const r = row(name);
    if (!r?.datagate || !r.floor) continue;
    const ratio = r.datagate.rps / r.floor.rps;
    const p99 = r.datagate.p99 / r.floor.p99;
    check(
      ratio >= 0.85 && p99 <= 1.5,
      `${name}: ${(ratio * 100).toFixed(0)} % of the floor's req/s (≥ 85 %), p99 ${p99.toFixed(2)}× the floor's (≤ 1.5×)`,
    );
  }
  const fs = row('filter_sort');
  if (fs?.datagate && fs.pgbench) {
    const share = fs.datagate.rps / fs.pgbench.tps;
    check(
      share >= 0.9 || report.rows < 1_000_000,
      `filter_sort without index: ${(share * 100).toFixed(0)} % of pgbench's tps (≥ 90 % at 1M rows${report.rows < 1_000_000 ? '; not PostgreSQL-bound at this size, so informative only' : ''})`,
    );
  }
  const fsi = row('filter_sort_indexed');
  if (fsi?.datagate && fsi.floor) {
    const ratio = fsi.datagate.rps / fsi.floor.rps;
    const p99 = fsi.datagate.p99 / fsi.floor.p99;
    check(
      ratio >= 0.85 && p99 <= 1.5,
      `filter_sort with index: ${(ratio * 100).toFixed(0)} % of the floor (≥ 85 %), p99 ${p99.toFixed(2)}× (≤ 1.5×)`,
    );
  }
  const login = row('login');
  if (login?.datagate && login.floorRps) {
    const share = login.datagate.rps / login.floorRps;
    check(share >= 0.9, `login: ${(share * 100).toFixed(0)} % of raw argon2 verify/s (≥ 90 %)`);
  }
  const storm = row('login_storm');
  const calm = row('list_role_jwt');
  if (storm?.datagate && calm?.datagate) {
    const factor = storm.datagate.p99 / calm.datagate.p99;
    check(factor < 2, `login storm raises list_role_jwt's p99 ${factor.toFixed(2)}× (< 2×)`);
  }
  // A target per server process: the workers case's RSS is that of three processes.
  const rss = Math.max(
    ...report.table.filter((r) => r.name !== WORKERS_CASE).map((r) => r.datagate?.rssMaxMb ?? 0),
  );
  check(rss < 200, `max server RSS ${rss.toFixed(0)} MB (< 200 MB)`);
  return out;
}

/** Issue 14's targets: both floors, 64 connections, peak RSS per read case, deep pages, estimated counts. */
function targets14(report: SizeReport): string[] {
  const out: string[] = [];
  const row = (name: string) => report.table.find((r) => r.name === name);
  const check = (ok: boolean, text: string) => out.push(`- ${ok ? '✅' : '❌'} ${text}`);
  for (const name of ['list_admin_static', 'list_role_jwt', 'get_one', 'filter_sort_indexed', LIST_C64]) {
    const r = row(name);
    if (!r?.datagate || !r.floor || !r.floorPrepared) continue;
    const toPrepared = r.datagate.rps / r.floorPrepared.rps;
    const toPlain = r.datagate.rps / r.floor.rps;
    const p99 = r.datagate.p99 / r.floorPrepared.p99;
    const koa = r.koa
      ? `; the Koa server alone ${((r.koa.rps / r.floorPrepared.rps) * 100).toFixed(0)} % of the prepared floor, datagate ${((r.datagate.rps / r.koa.rps) * 100).toFixed(0)} % of the Koa server`
      : '';
    const text = `${name}: ${(toPrepared * 100).toFixed(0)} % of the prepared floor (≥ 85 %), ${(toPlain * 100).toFixed(0)} % of the unprepared one (≥ 100 %), p99 ${p99.toFixed(2)}× the prepared floor's (≤ 1.5×)${koa}`;
    if (name === LIST_C64) out.push(`- ${text} — informative`);
    else check(toPrepared >= 0.85 && toPlain >= 1 && p99 <= 1.5, text);
  }
  const reads = report.table.filter((r) => READ_CASES.has(r.name) && r.datagate?.rssMaxMb != null);
  if (reads.length > 0) {
    const worst = reads.reduce((a, b) =>
      (a.datagate!.rssMaxMb ?? 0) >= (b.datagate!.rssMaxMb ?? 0) ? a : b,
    );
    check(
      reads.every((r) => (r.datagate!.rssMaxMb ?? 0) < 200),
      `peak RSS under every read case < 200 MB: highest ${fmt(worst.datagate!.rssMaxMb)} MB (${worst.name})`,
    );
  }
  const first = row('page_1')?.datagate;
  for (const name of ['page_deep', 'page_deep_cursor']) {
    const deep = row(name)?.datagate;
    if (!first || !deep) continue;
    const factor = deep.p50 / first.p50;
    const text = `${name}: page ${DEEP_PAGE.toLocaleString('en')} p50 ${fmt(deep.p50, 2)} ms vs page 1 ${fmt(first.p50, 2)} ms (${factor.toFixed(2)}×; ≤ 1.2×)`;
    if (name === 'page_deep')
      out.push(`- ${text} — offset paging, for comparison: it reads every row it skips`);
    else check(factor <= 1.2, text);
  }
  const exact = row(COUNT_ONLY)?.datagate;
  const estimate = row(COUNT_ESTIMATED)?.datagate;
  if (exact && estimate) {
    const faster = exact.p50 / estimate.p50;
    check(
      faster >= 50 || report.rows < 1_000_000,
      `estimated count: p50 ${fmt(estimate.p50, 2)} ms vs exact ${fmt(exact.p50, 2)} ms (${faster.toFixed(1)}× faster; ≥ 50× at 1M rows${report.rows < 1_000_000 ? '; informative at this size' : ''}), req/s ${(estimate.rps / exact.rps).toFixed(1)}×`,
    );
  }
  return out;
}

/**
 * Issue 14's cases beside a Koa server running the same prepared statement and nothing else: how much of the
 * gap to the prepared floor is the framework the design fixes, and how much is what datagate does on top.
 */
function koaSection(report: SizeReport): string[] {
  const rows = report.table.filter((r) => r.koa && r.datagate && r.floorPrepared);
  if (rows.length === 0) return [];
  return [
    '## Beside a Koa server (issue 14)',
    '',
    "bench/koa-floor.mjs: Koa + @koa/router + pg's pool, one route, the same statement prepared, its text written as the answer; no caller, no rules, no checks, no log.",
    '',
    '| case | datagate req/s | Koa server req/s | prepared floor req/s | **Koa ÷ prepared floor** | **datagate ÷ Koa** | p99 ms (dg / Koa / prepared) | CPU ms/req (dg / Koa / prepared) |',
    `|${' --- |'.repeat(8)}`,
    ...rows.map((r) => {
      const [d, k, p] = [r.datagate!, r.koa!, r.floorPrepared!];
      return `| ${r.name} | ${fmt(d.rps)} | ${fmt(k.rps)} | ${fmt(p.rps)} | **${fmt(k.rps / p.rps, 2)}** | **${fmt(d.rps / k.rps, 2)}** | ${fmt(d.p99, 2)} / ${fmt(k.p99, 2)} / ${fmt(p.p99, 2)} | ${fmt(d.cpuMs, 3)} / ${fmt(k.cpuMs, 3)} / ${fmt(p.cpuMs, 3)} |`;
    }),
    '',
  ];
}

/**
 * Issue 17: create and update throughput with revisions on ≥ 80 % of off — each setting's figures over the
 * counted slices, each round's on/off ratio and their median (bench/revisions-cases.ts).
 */
function revisionsSection(report: SizeReport): string[] {
  if (report.revisions === null) return [];
  const out = [
    '## Revisions on and off (issue 17)',
    '',
    `\`cargos\`' \`meta.accountability\` null (off: no activity, no revision) and \`all\` (on, the default: an activity entry and a revision per item), each on a server and a fresh copy of the seeded database of its own; the two take turns in slices of ${WRITE_SLICE} requests, in alternating order, ${WRITE_ROUNDS} counted rounds after one warm-up round. CPU ms/req: the server's process, and the PostgreSQL backends of its database.`,
    '',
    '| case | revisions | requests | req/s | p50 ms | p99 ms | CPU ms/req server | CPU ms/req PostgreSQL | errors + non-2xx |',
    `|${' --- |'.repeat(9)}`,
  ];
  const targets: string[] = [];
  for (const { name, rounds, off, on } of report.revisions.cases) {
    for (const [setting, figures] of [
      ['off', off],
      ['on', on],
    ] as const) {
      out.push(
        `| ${name} | ${setting} | ${figures.requests} | ${fmt(figures.rps, 1)} | ${fmt(figures.p50)} | ${fmt(figures.p99)} | ${fmt(figures.cpuMs, 2)} | ${fmt(figures.dbCpuMs, 2)} | ${figures.failed}${statusList(figures.statuses)} |`,
      );
    }
    const ratio = median(rounds.map(onOff));
    targets.push(
      `- ${ratio >= 0.8 ? '✅' : '❌'} ${name}: revisions on at ${(ratio * 100).toFixed(0)} % of off's req/s, the median of ${rounds.length} rounds' ratios (≥ 80 %); over all counted slices ${fmt(on.rps / off.rps, 2)}; CPU ms/req off → on: server ${fmt(off.cpuMs, 2)} → ${fmt(on.cpuMs, 2)}, PostgreSQL ${fmt(off.dbCpuMs, 2)} → ${fmt(on.dbCpuMs, 2)}`,
      `  - on/off by round (the order the settings ran in): ${rounds.map((r) => `${fmt(onOff(r), 2)} (${r.order.join(', ')})`).join('; ')}`,
    );
  }
  return [...out, '', ...targets];
}

function scaling(reports: SizeReport[]): string[] {
  if (reports.length < 2) return [];
  const small = reports[0]!;
  const large = reports.at(-1)!;
  const out = [
    `### ${large.rows.toLocaleString('en')} vs ${small.rows.toLocaleString('en')} rows (p50, target ≤ 1.2×)`,
    '',
  ];
  for (const name of ['list_admin_static', 'list_role_jwt', 'get_one']) {
    const a = small.table.find((r) => r.name === name)?.datagate;
    const b = large.table.find((r) => r.name === name)?.datagate;
    if (!a || !b) continue;
    const factor = b.p50 / a.p50;
    out.push(
      `- ${factor <= 1.2 ? '✅' : '❌'} ${name}: p50 ${fmt(a.p50, 2)} → ${fmt(b.p50, 2)} ms (${factor.toFixed(2)}×)`,
    );
  }
  return out;
}

async function machine(): Promise<string[]> {
  const version = await admin(
    async (client) => (await client.query('show server_version')).rows[0].server_version as string,
  );
  const settings = await admin(
    async (client) =>
      (
        await client.query(
          `select name, setting, unit from pg_settings where name in ('shared_buffers', 'max_connections', 'work_mem', 'jit')`,
        )
      ).rows as Array<{ name: string; setting: string; unit: string | null }>,
  );
  const cpu = cpus();
  const git = (...args: string[]) =>
    run('git', args).then(
      (out) => out.trim(),
      () => '?',
    );
  const [commit, dirty] = await Promise.all([git('rev-parse', '--short', 'HEAD'), git('status', '--short')]);
  const changed = dirty === '?' ? '' : dirty.split('\n').filter(Boolean).length;
  return [
    `- datagate source: commit ${commit}${changed ? ` + ${changed} uncommitted paths (working tree as loaded when each server started)` : ''}`,
    `- Node ${process.version}, PostgreSQL ${version} on 127.0.0.1 (${settings.map((s) => `${s.name}=${s.setting}${s.unit ?? ''}`).join(', ')})`,
    `- ${cpu.length} cores (${cpu[0]?.model.trim()}), ${(totalmem() / 2 ** 30).toFixed(1)} GiB RAM — the load generator (autocannon, one process) and pgbench share these cores with the server and PostgreSQL`,
    `- autocannon ${CONNECTIONS} connections, ${WARMUP} s warm-up + ${DURATION} s measured per case; pgbench -c ${CONNECTIONS} -j 2 -T ${Math.max(1, Math.round(DURATION))} -M extended -n`,
    `- datagate: NODE_ENV=production, log level ${LOG_LEVEL ?? 'info (production default; access log to a file)'}, pg pool ${POOL_MAX} (default); floor pool ${POOL_MAX}; requests of one caller at once ${process.env.PER_CALLER_CONCURRENCY ? `${process.env.PER_CALLER_CONCURRENCY} (PER_CALLER_CONCURRENCY)` : '2 (default `limits.perCaller.concurrency`: each case is one caller), up to 8 while its requests are quick (default `limits.perCaller.burst`, decision 0055); the others wait their turn; the floor has no such rule'}${process.env.PER_CALLER_BURST ? `; burst ${process.env.PER_CALLER_BURST} (PER_CALLER_BURST)` : ''}${CPU_PROF ? '; --cpu-prof ON (slows the server)' : ''}`,
  ];
}

function document(report: SizeReport, info: string[], all: SizeReport[]): string {
  const statement = (c: PlanCase) =>
    `**${c.name}** \`${c.path}\`\n\n\`\`\`sql\n${c.sql.replace(/\n\s+/g, '\n  ')}\n\`\`\`\nparameters: \`${JSON.stringify(c.parameters)}\``;
  return [
    `# datagate bench — ${report.rows.toLocaleString('en')} rows — ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC`,
    '',
    ...info,
    '',
    markdownTable(report),
    '',
    "**ratio** = datagate req/s ÷ floor req/s (floor: bench/floor-server.mjs, bare node:http + pg running the same SQL; for login: raw argon2); **ratio to prepared** = datagate req/s ÷ the prepared floor's (the same floor, each statement a named prepared statement). dg/pgbench = datagate req/s ÷ pgbench tps of the same SQL.",
    '',
    ...report.table.filter((r) => r.note).map((r) => `- ${r.name}: ${r.note}`),
    ...report.extra.map((e) => `- ${e}`),
    '',
    '## Targets (issue 5)',
    '',
    ...targets(report),
    '',
    '## Targets (issue 14)',
    '',
    '"prepared floor" = the same floor running each statement as a named prepared statement: the floor to hold datagate to once datagate prepares its statements too.',
    '',
    ...targets14(report),
    '',
    ...koaSection(report),
    ...revisionsSection(report),
    ...(all.length > 1 && report === all.at(-1) ? ['', ...scaling(all)] : []),
    '',
    '## Same bytes from datagate and the floor',
    '',
    ...report.sanity.map((s) => `- ${s}`),
    '',
    '<details><summary>The SQL (as datagate sends it; the floor and pgbench run exactly this)</summary>',
    '',
    report.plan.map(statement).join('\n\n'),
    '',
    '</details>',
    '',
  ].join('\n');
}

// ---------------------------------------------------------------- main

async function main(): Promise<void> {
  assertLoopback(SERVER_URL, 'bench');
  if (!existsSync(join(ROOT, CLI)))
    throw new Error(`${CLI} is missing: run \`make build\` (make bench does)`);
  workDir = mkdtempSync(join(tmpdir(), 'datagate-bench-'));
  mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
  const info = await machine();
  const reports: SizeReport[] = [];
  for (const rows of ROWS) {
    const report = await benchSize(rows);
    reports.push(report);
    const tag = env.BENCH_TAG ? `-${env.BENCH_TAG.replace(/[^\w.-]/g, '_')}` : '';
    const file = join(ROOT, `bench/results/${new Date().toISOString().slice(0, 10)}-${rows}${tag}.md`);
    writeFileSync(file, document(report, info, reports));
    process.stdout.write(
      `\n## ${rows.toLocaleString('en')} rows\n\n${markdownTable(report)}\n\n${[...targets(report), ...targets14(report), '', ...revisionsSection(report)].join('\n')}\n`,
    );
    log(`wrote ${file}`);
  }
  const scale = scaling(reports);
  if (scale.length > 0) process.stdout.write(`\n${scale.join('\n')}\n`);
  process.stdout.write(`\n${info.join('\n')}\n`);
}

try {
  await main();
} catch (error) {
  log(`failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exitCode = 1;
} finally {
  if (!interrupted) await cleanUp();
}
