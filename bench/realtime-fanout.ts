// `make bench-realtime`: issue 16's fan-out figures. 1,000 WebSocket subscribers (half an admin, half an
// Operator whose rule hides deleted rows) on one datagate, 100 changes/s through the API for 20 s; delivery
// latency p50/p99, the server's RSS per 1,000 connections, list_role_jwt's req/s without and with the
// subscribers connected. See bench/README.md ("Other measurements"). Run: node --import tsx bench/realtime-fanout.ts

import { type ChildProcess, fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';
import pg from 'pg';
import {
  ApiCallRefused,
  apiCall,
  assertLoopback,
  BUILT_CLI,
  ChildProcesses,
  cpuSeconds,
  databaseUrl,
  freePort,
  numberFromEnv,
  productionServerEnv,
  quoteId,
  roleIdByName,
  rssMb,
  seedCargosWithOperator,
  waitFor,
  withClient,
} from '../scripts/local-harness.ts';
import {
  HISTOGRAM_BUCKETS,
  type Histogram,
  type Served,
  type ToLoader,
  type ToParent,
  type Write,
} from './realtime-protocol.ts';

const ROOT = new URL('..', import.meta.url).pathname;
const SERVER_URL = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const SUBSCRIBERS = numberFromEnv('BENCH_RT_SUBSCRIBERS', 1000, 2);
const RATE = numberFromEnv('BENCH_RT_RATE', 100, 1);
const SECONDS = numberFromEnv('BENCH_RT_SECONDS', 20, 1);
const LOADERS = numberFromEnv('BENCH_RT_LOADERS', 2, 1);
const ROWS = numberFromEnv('BENCH_ROWS', 10_000, 100);
const DURATION = numberFromEnv('BENCH_DURATION', 10, 1);
const WARMUP = numberFromEnv('BENCH_WARMUP', 2, 0);
const CONNECTIONS = numberFromEnv('BENCH_CONNECTIONS', 16, 1);
/** Writes in flight at most: past it a tick's writes are not made (and counted as skipped). */
const IN_FLIGHT = 32;
/**
 * Admin users the writes rotate over: 100 changes/s come from many clients, and one caller's requests are
 * served 2 at a time (`limits.perCaller.concurrency`), so a single writer would measure its own queue.
 */
const WRITERS = 8;
/** How long arrivals may trail the last write before the run counts what is missing. */
const DRAIN_MS = 10_000;
/**
 * `api` (default): the writes are `PATCH`es through the server, as issue 16 has them. `sql`: `update` statements
 * straight to PostgreSQL on a watched collection (`datagate realtime watch`), so that the server only delivers:
 * the write path's own cost (and its ceiling on a busy box) is out of the figures.
 */
const WRITES = process.env.BENCH_RT_WRITES === 'sql' ? 'sql' : 'api';
/** `1`: the server runs with `node --cpu-prof` (its profile in bench/results/profiles/ when it stops). */
const CPU_PROF = process.env.BENCH_CPU_PROF === '1';
/**
 * `BENCH_ENTRY`: another build's entry (a before/after in one sitting); else the built CLI when `make build`
 * made it, else the sources through tsx (~70 MB more RSS: say so).
 */
const CLI = process.env.BENCH_ENTRY
  ? [process.env.BENCH_ENTRY]
  : existsSync(join(ROOT, BUILT_CLI))
    ? [BUILT_CLI]
    : ['--import', 'tsx', 'src/cli.ts'];

const ADMIN = { email: 'admin@bench.local', password: 'admin-bench-password' };
const OPERATOR = { email: 'op@bench.local', password: 'operator-bench-password' };

const { start, run, stop, stopAll } = new ChildProcesses(ROOT);
const database = `datagate_bench_rt_${process.pid}`;
let created = false;
const workDir = mkdtempSync(join(tmpdir(), 'datagate-bench-rt-'));
const log = (message: string) => process.stderr.write(`[bench-realtime] ${message}\n`);
const now = () => performance.timeOrigin + performance.now();

async function cleanUp(): Promise<void> {
  for (const { child } of loaders) child.kill('SIGKILL');
  await stopAll(3000);
  if (created)
    await withClient(SERVER_URL, (client) =>
      client.query(`drop database if exists ${quoteId(database)} with (force)`),
    ).catch((error: Error) => log(`could not drop ${database}: ${error.message}`));
  rmSync(workDir, { recursive: true, force: true });
}
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => void cleanUp().finally(() => process.exit(130)));
}

// ---------------------------------------------------------------- load processes

type Loader = { child: ChildProcess; next: (type: ToParent['type']) => Promise<ToParent> };

const loaders: Loader[] = [];

function forkLoader(): Loader {
  const child = fork(join(ROOT, 'bench/realtime-subscribers.ts'), {
    cwd: ROOT,
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const waiting = new Map<string, { resolve: (message: ToParent) => void; reject: (error: Error) => void }>();
  child.on('message', (message: ToParent) => {
    waiting.get(message.type)?.resolve(message);
    waiting.delete(message.type);
  });
  // Not on 'exit': it can come before the last messages are read (a loader sends its result, then leaves),
  // whereas the channel ends only after them.
  child.once('disconnect', () => {
    for (const { reject } of waiting.values()) reject(new Error(`a load process left (${child.exitCode})`));
    waiting.clear();
  });
  const loader: Loader = {
    child,
    next: (type) => new Promise((resolve, reject) => waiting.set(type, { resolve, reject })),
  };
  loaders.push(loader);
  return loader;
}

const tell = (loader: Loader, message: ToLoader) => loader.child.send(message);

// ---------------------------------------------------------------- figures

/** The server's trace of each write (bench/realtime-probe.mjs), asked for with SIGUSR2 once all has arrived. */
type Traced = {
  seq: number;
  woken: number;
  read: number;
  sent: number | null;
  written: number | null;
  /** The server's CPU time (ms) at the first send and at the end of the round that wrote the change. */
  cpuSent: number;
  cpuWritten: number;
  /** How many traced changes that round wrote. */
  round: number;
};

async function serverTrace(pid: number | undefined, file: string): Promise<Traced[]> {
  if (pid === undefined) return [];
  process.kill(pid, 'SIGUSR2');
  const deadline = performance.now() + 10_000;
  while (!existsSync(file)) {
    if (performance.now() > deadline) throw new Error('the server wrote no trace (bench/realtime-probe.mjs)');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const rows = JSON.parse(readFileSync(file, 'utf8')) as Array<
    [number, number, number, number | null, number | null, number, number, number]
  >;
  return rows.map(([seq, woken, read, sent, written, cpuSent, cpuWritten, round]) => ({
    seq,
    woken,
    read,
    sent,
    written,
    cpuSent,
    cpuWritten,
    round,
  }));
}

/** p50 / p99 / max of exact values, in ms. */
function spread(values: number[]): string {
  if (values.length === 0) return 'n/a';
  const sorted = [...values].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.max(0, Math.ceil(sorted.length * p) - 1)]!;
  return [at(0.5), at(0.99), sorted.at(-1)!].map((ms) => ms.toFixed(1)).join(' / ');
}

function merged(histograms: Histogram[]): Uint32Array {
  const counts = new Uint32Array(HISTOGRAM_BUCKETS + 1);
  for (const histogram of histograms) for (const [bucket, count] of histogram) counts[bucket]! += count;
  return counts;
}

/** The p-th percentile (0–1) of a 0.1 ms histogram, in ms. */
function percentile(counts: Uint32Array, p: number): number {
  const total = counts.reduce((sum, count) => sum + count, 0);
  const rank = Math.max(1, Math.ceil(total * p));
  let seen = 0;
  for (let bucket = 0; bucket < counts.length; bucket++) {
    seen += counts[bucket]!;
    if (seen >= rank) return bucket / 10;
  }
  return Number.NaN;
}

async function listRoleJwt(base: string, jwt: string) {
  const options = {
    url: `${base}/items/cargos?limit=100`,
    connections: CONNECTIONS,
    headers: { authorization: `Bearer ${jwt}` },
    timeout: 30,
  };
  if (WARMUP > 0) await autocannon({ ...options, duration: WARMUP });
  const result = await autocannon({ ...options, duration: DURATION });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx + result.errors + result.timeouts,
  };
}

// ---------------------------------------------------------------- the run

async function main(): Promise<void> {
  assertLoopback(SERVER_URL, 'bench-realtime');
  const loadBefore = loadavg();
  const url = databaseUrl(SERVER_URL, database);
  await withClient(SERVER_URL, (client) => client.query(`create database ${quoteId(database)}`));
  created = true;
  const port = await freePort();
  const serverEnv = productionServerEnv({
    databaseUrl: url,
    port,
    admin: ADMIN,
    extra: {
      ACCESS_TOKEN_TTL: '1d',
      LOGIN_THROTTLE: 'false',
      // Every subscriber comes from 127.0.0.1 and is one of two users: the per-address and per-user limits
      // (50 and 10 by default) are raised to the bench's count, not measured.
      REALTIME_WS_CONNECTIONS_PER_ADDRESS: String(SUBSCRIBERS + 10),
      REALTIME_WS_CONNECTIONS_PER_USER: String(SUBSCRIBERS + 10),
    },
  });
  const cli = (...args: string[]) =>
    run(process.execPath, [...CLI, ...args], { env: serverEnv, timeoutMs: 600_000 });
  await seedCargosWithOperator(cli, ROWS, OPERATOR);
  const adminToken = randomBytes(32).toString('hex');
  await cli('users', 'token', '--email', ADMIN.email, '--token', adminToken);
  if (WRITES === 'sql') await cli('realtime', 'watch', 'cargos');
  await withClient(url, (client) => client.query('vacuum analyze cargos'));

  const probeFile = join(workDir, 'probe.json');
  const server = start(
    [
      '--import',
      join(ROOT, 'bench/realtime-probe.mjs'),
      ...(CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${join(ROOT, 'bench/results/profiles')}`] : []),
      ...CLI,
      'serve',
    ],
    { env: { ...serverEnv, DATAGATE_RT_PROBE_FILE: probeFile }, logFile: join(workDir, 'datagate.log') },
  );
  const base = `http://127.0.0.1:${port}`;
  await waitFor(`${base}/server/health`, server);
  const role = await roleIdByName(url, 'Operator');
  await apiCall('POST', `${base}/permissions`, adminToken, {
    role,
    collection: 'cargos',
    action: 'read',
    permissions: { is_deleted: { _eq: false } },
    fields: ['id', 'date_created', 'description', 'temperature'],
  });
  const adminRole = await withClient(url, async (client) => {
    const { rows } = await client.query<{ id: string }>(
      `select id from datagate_roles where admin_access limit 1`,
    );
    return rows[0]!.id;
  });
  const writers: string[] = [];
  for (let i = 0; i < WRITERS; i++) {
    const token = randomBytes(32).toString('hex');
    await apiCall('POST', `${base}/users`, adminToken, {
      email: `writer${i}@bench.local`,
      password: 'writer-bench-password',
      role: adminRole,
      token,
    });
    writers.push(token);
  }
  const jwt = (
    JSON.parse(await apiCall('POST', `${base}/auth/login`, null, OPERATOR)) as { access_token: string }
  ).access_token;
  // The rows written: 3 visible to the Operator for each deleted one.
  const targets = await withClient(url, async (client) => {
    const { rows } = await client.query<{ id: number; is_deleted: boolean }>(
      `(select id, is_deleted from cargos where not is_deleted order by id limit 150)
       union all (select id, is_deleted from cargos where is_deleted order by id limit 50)`,
    );
    return rows.sort((a, b) => a.id - b.id);
  });

  log(`list_role_jwt without subscribers (${WARMUP} + ${DURATION} s)`);
  const without = await listRoleJwt(base, jwt);
  const rssBefore = rssMb(server.pid);

  for (let i = 0; i < LOADERS; i++) forkLoader();
  const admins = Math.ceil(SUBSCRIBERS / 2);
  const operators = SUBSCRIBERS - admins;
  const tokens = [...Array(admins).fill(adminToken), ...Array(operators).fill(jwt)] as string[];
  log(`opening ${SUBSCRIBERS} subscribers (${admins} admin, ${operators} Operator) in ${LOADERS} processes`);
  const openStarted = performance.now();
  const opened = await Promise.all(
    loaders.map((loader, i) => {
      const reply = loader.next('opened');
      tell(loader, {
        type: 'open',
        url: `${base.replace('http', 'ws')}/websocket`,
        tokens: tokens.filter((_, n) => n % LOADERS === i),
        batch: 25,
      });
      return reply as Promise<Extract<ToParent, { type: 'opened' }>>;
    }),
  );
  const openMs = performance.now() - openStarted;
  const openedCount = opened.reduce((sum, o) => sum + o.opened, 0);
  const failedCount = opened.reduce((sum, o) => sum + o.failed, 0);
  await new Promise((resolve) => setTimeout(resolve, 2000));
  const rssConnected = rssMb(server.pid);

  log(`list_role_jwt with ${openedCount} subscribers connected`);
  const withSubscribers = await listRoleJwt(base, jwt);

  log(`${RATE} changes/s for ${SECONDS} s`);
  let rssPeak = rssMb(server.pid);
  const sampler = setInterval(() => {
    const rss = rssMb(server.pid);
    if (rss !== null && (rssPeak === null || rss > rssPeak)) rssPeak = rss;
  }, 100);
  const written: Write[] = [];
  let pending: Write[] = [];
  let inFlight = 0;
  let skipped = 0;
  const failedWrites: Record<string, number> = {};
  let expected = 0;
  const flush = setInterval(() => {
    if (pending.length === 0) return;
    for (const loader of loaders) tell(loader, { type: 'written', writes: pending });
    pending = [];
  }, 100);
  const sqlWriters =
    WRITES === 'sql'
      ? new pg.Pool({ connectionString: url, max: WRITERS, application_name: 'bench writes' })
      : null;
  const cpuBefore = cpuSeconds(server.pid);
  const loaderCpuBefore = loaders.map(({ child }) => cpuSeconds(child.pid));
  const writeStarted = performance.now();
  let issued = 0;
  await new Promise<void>((resolve) => {
    const tick = setInterval(() => {
      const elapsed = performance.now() - writeStarted;
      const due = Math.min(RATE * SECONDS, Math.floor((elapsed * RATE) / 1000));
      for (; issued < due; issued++) {
        if (inFlight >= IN_FLIGHT) {
          skipped += 1;
          continue;
        }
        const seq = issued;
        const target = targets[seq % targets.length]!;
        const sent = now();
        inFlight += 1;
        const writer = writers[seq % writers.length]!;
        const made =
          sqlWriters === null
            ? apiCall('PATCH', `${base}/items/cargos/${target.id}`, writer, { description: `rt ${seq}` })
            : sqlWriters.query('update cargos set description = $1 where id = $2', [`rt ${seq}`, target.id]);
        made
          .then(() => {
            const write = { seq, sent, responded: now() };
            written.push(write);
            pending.push(write);
            expected += admins + (target.is_deleted ? 0 : operators);
          })
          .catch((error: Error) => {
            const reason = error instanceof ApiCallRefused ? String(error.status) : error.name;
            failedWrites[reason] = (failedWrites[reason] ?? 0) + 1;
          })
          .finally(() => (inFlight -= 1));
      }
      if (issued >= RATE * SECONDS && inFlight === 0) {
        clearInterval(tick);
        resolve();
      }
    }, 10);
  });
  const writeMs = performance.now() - writeStarted;
  await sqlWriters?.end();
  const drainStarted = performance.now();
  let arrived = 0;
  while (performance.now() - drainStarted < DRAIN_MS) {
    const counts = await Promise.all(
      loaders.map((loader) => {
        const reply = loader.next('counted');
        tell(loader, { type: 'count' });
        return reply as Promise<Extract<ToParent, { type: 'counted' }>>;
      }),
    );
    arrived = counts.reduce((sum, c) => sum + c.arrivals, 0);
    if (arrived >= expected) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const cpuAfter = cpuSeconds(server.pid);
  const loaderCpuAfter = loaders.map(({ child }) => cpuSeconds(child.pid));
  clearInterval(sampler);
  clearInterval(flush);
  const traced = await serverTrace(server.pid, probeFile);
  const changes: Served[] = traced.flatMap(({ seq, woken, written }) =>
    written === null ? [] : [{ seq, woken, written }],
  );
  for (const loader of loaders) {
    tell(loader, { type: 'written', writes: pending });
    tell(loader, { type: 'served', changes });
  }
  const results = await Promise.all(
    loaders.map((loader) => {
      const reply = loader.next('result');
      tell(loader, { type: 'finish' });
      return reply as Promise<Extract<ToParent, { type: 'result' }>>;
    }),
  );
  const fromRequest = merged(results.map((r) => r.fromRequest));
  const fromResponse = merged(results.map((r) => r.fromResponse));
  const fromWoken = merged(results.map((r) => r.fromWoken));
  const afterWritten = merged(results.map((r) => r.afterWritten));
  const untraced = results.reduce((sum, r) => sum + r.untraced, 0);
  const stage = (from: (t: Traced) => number | null, to: (t: Traced) => number | null) =>
    spread(
      traced.flatMap((t) => {
        const a = from(t);
        const b = to(t);
        return a === null || b === null ? [] : [b - a];
      }),
    );
  const loaderCpu =
    loaderCpuBefore.every((c) => c !== null) && loaderCpuAfter.every((c) => c !== null)
      ? loaderCpuAfter.reduce((sum, c, i) => sum + c! - loaderCpuBefore[i]!, 0)
      : null;
  const delivered = results.reduce((sum, r) => sum + r.arrivals, 0);
  const closedEarly = results.reduce((sum, r) => sum + r.closedEarly, 0);
  const unmatched = results.reduce((sum, r) => sum + r.unmatched, 0);
  const loadAfter = loadavg();
  if (CPU_PROF) await stop(server, 15_000); // --cpu-prof writes its profile at exit

  const perThousand = (rss: number | null) =>
    rss === null || rssBefore === null || openedCount === 0
      ? 'n/a'
      : `${(((rss - rssBefore) * 1000) / openedCount).toFixed(1)} MB`;
  const mb = (rss: number | null) => (rss === null ? 'n/a' : `${rss.toFixed(1)} MB`);
  const cpu =
    cpuBefore === null || cpuAfter === null || written.length === 0
      ? 'n/a'
      : `${(cpuAfter - cpuBefore).toFixed(1)} s, ${(((cpuAfter - cpuBefore) * 1000) / written.length).toFixed(1)} ms per write made`;
  const ms = (value: number) => `${value.toFixed(1)} ms`;
  const date = new Date().toISOString().slice(0, 10);
  const tag = process.env.BENCH_TAG ? `-${process.env.BENCH_TAG}` : '';
  const report = `# Realtime fan-out — ${date}

\`node --import tsx bench/realtime-fanout.ts\` (\`make bench-realtime\`); server: \`node ${CLI.join(' ')} serve\`
(NODE_ENV=production, log level info), PostgreSQL on loopback, ${ROWS.toLocaleString('en')} \`cargos\` rows.
Box: ${cpus().length} cores, ${(totalmem() / 1024 ** 3).toFixed(1)} GB; load average (1/5/15 min) ${loadBefore.map((l) => l.toFixed(2)).join(' / ')} before,
${loadAfter.map((l) => l.toFixed(2)).join(' / ')} after. The server, PostgreSQL, the harness and ${LOADERS} load processes share the cores${process.env.BENCH_RT_NOTE ? `; ${process.env.BENCH_RT_NOTE}` : ''}.
Server: \`realtime.writeInterval\` ${process.env.REALTIME_WRITE_INTERVAL ?? 'default'}. Load processes: ${process.env.BENCH_RT_PARSE === '1' ? 'every message parsed as JSON (`BENCH_RT_PARSE=1`)' : 'updates recognised by their first bytes, not parsed'}.

## Set-up

- ${SUBSCRIBERS.toLocaleString('en')} WebSocket subscribers on \`/websocket\` (\`ws\` clients, ${LOADERS} load processes,
  token in the URL), each \`subscribe\` to \`cargos\` with \`fields: id, description\`: ${admins} as the admin (every row),
  ${operators} as an Operator (read rule \`is_deleted = false\`, so one write in four is for admins only).
  Opened ${openedCount} (${failedCount} refused) in ${(openMs / 1000).toFixed(1)} s, \`init\` included.
- Writes: ${
    WRITES === 'sql'
      ? `\`update cargos set description = … where id = …\` straight to PostgreSQL on ${WRITERS} connections, \`cargos\` watched (\`datagate realtime watch\`, \`BENCH_RT_WRITES=sql\`): the server only delivers,`
      : `\`PATCH /items/cargos/:id\` (${WRITERS} admin users in turn, static tokens)`
  } at ${RATE}/s for ${SECONDS} s over 200 rows
  (150 visible, 50 deleted), \`description\` = \`rt <seq>\`: ${written.length} made in ${(writeMs / 1000).toFixed(1)} s,
  failed: ${
    Object.entries(failedWrites)
      .map(([why, n]) => `${n} × ${why}`)
      .join(', ') || 'none'
  }; ${skipped} not made (over ${IN_FLIGHT} in flight).
- Latency: each arrival against the write's request start (an upper bound on "from commit": the request's own
  handling is in it) and against its response (the commit is before it; an event can beat the response, so
  this one is a lower bound and can be below 0). Clocks: one box, \`performance.timeOrigin + now()\` per process.

## Figures

| figure | value |
|---|---|
| deliveries | ${delivered.toLocaleString('en')} of ${expected.toLocaleString('en')} expected${unmatched ? ` (${unmatched} unmatched)` : ''}; ${closedEarly} subscribers closed by the server |
| latency from the write's request, p50 / p99 / max | ${ms(percentile(fromRequest, 0.5))} / ${ms(percentile(fromRequest, 0.99))} / ${ms(percentile(fromRequest, 1))} |
| latency from the write's response, p50 / p99 | ${ms(percentile(fromResponse, 0.5))} / ${ms(percentile(fromResponse, 0.99))} |
| latency from the server hearing the commit's NOTIFY (≈ commit), p50 / p99 / max | ${ms(percentile(fromWoken, 0.5))} / ${ms(percentile(fromWoken, 0.99))} / ${ms(percentile(fromWoken, 1))}${untraced ? ` (${untraced} arrivals untraced)` : ''} |
| arrival after the server's last socket write of the change (kernel + client share), p50 / p99 | ${ms(percentile(afterWritten, 0.5))} / ${ms(percentile(afterWritten, 0.99))} |
| server CPU from the first write to the last delivery (user + system) | ${cpu} |
| load processes' CPU over the same span (user + system) | ${loaderCpu === null || delivered === 0 ? 'n/a' : `${loaderCpu.toFixed(1)} s, ${((loaderCpu * 1e6) / delivered).toFixed(1)} µs per delivery`} |
| server RSS: before subscribers / ${openedCount} connected (idle) / peak during the writes | ${mb(rssBefore)} / ${mb(rssConnected)} / ${mb(rssPeak)} |
| server RSS per 1,000 connections (connected − before) | ${perThousand(rssConnected)} |
| list_role_jwt without subscribers: req/s, p50 / p99 | ${without.rps.toFixed(0)}, ${without.p50} / ${without.p99} ms${without.non2xx ? ` (${without.non2xx} errors)` : ''} |
| list_role_jwt with ${openedCount} subscribers connected: req/s, p50 / p99 | ${withSubscribers.rps.toFixed(0)}, ${withSubscribers.p50} / ${withSubscribers.p99} ms${withSubscribers.non2xx ? ` (${withSubscribers.non2xx} errors)` : ''} (${((withSubscribers.rps / without.rps) * 100).toFixed(0)} % of without) |

## Server-side queueing, per change (the server's own clock: bench/realtime-probe.mjs)

${traced.length} changes traced. ms, p50 / p99 / max:

| stage | ms |
|---|---|
| NOTIFY heard → read from the log (the feed's query) | ${stage(
    (t) => t.woken,
    (t) => t.read,
  )} |
| read → first socket sent its message (the hub's queue, judging, shaping) | ${stage(
    (t) => t.read,
    (t) => t.sent,
  )} |
| first socket → last socket write (the fan-out: sends and writes) | ${stage(
    (t) => t.sent,
    (t) => t.written,
  )} |
| **NOTIFY heard → last socket write** | ${stage(
    (t) => t.woken,
    (t) => t.written,
  )} |
| first socket → last socket write, the server's CPU time only (user + system: the fan-out's work, without waiting for a core) | ${stage(
    (t) => (t.sent === null ? null : t.cpuSent),
    (t) => (t.written === null ? null : t.cpuWritten),
  )} |

Changes per round of writes (one system call per socket per round), mean over changes: ${
    traced.length === 0 ? 'n/a' : (traced.reduce((sum, t) => sum + t.round, 0) / traced.length).toFixed(2)
  }.

list_role_jwt: \`GET /items/cargos?limit=100\`, Operator JWT, autocannon ${CONNECTIONS} connections, ${WARMUP} s warm-up + ${DURATION} s
(latency at autocannon's 1 ms resolution). Target (issue 16): delivery p99 < 100 ms.${CPU_PROF ? '\nThe server ran with `--cpu-prof` (slower); its profile is in bench/results/profiles/.' : ''}
`;
  mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
  const file = join(ROOT, `bench/results/${date}-realtime-fanout${tag}.md`);
  writeFileSync(file, report);
  process.stdout.write(report);
  log(`written to ${file}`);
}

main()
  .catch((error: Error) => {
    log(error.stack ?? error.message);
    process.exitCode = 1;
  })
  .finally(cleanUp);
