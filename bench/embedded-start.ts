// What a newcomer meets first: `datagate serve` on the embedded database (PGlite), no DATABASE_URL.
// BENCH_RUNS rounds; each starts the built server on a fresh data directory (a first start: the cluster is
// created), then again on that directory (a restart). Each start: wall time to `/server/health` 200, the
// server's CPU until then (its own and that of the children it waited for, i.e. a first start's initdb),
// RSS once start-up's garbage had half a second to go, then 200 light requests (login, 100 single-item
// writes and 100 filtered list reads on a small collection, one at a time) and RSS again. Medians per kind.
// Run: make bench-start   (or: node --import tsx bench/embedded-start.ts after `make build`)
// env: BENCH_RUNS (5), BENCH_ENTRY (the built CLI; a comma list of entries, e.g. `dist/bundle/datagate.js,
//      dist/src/cli.js`, runs them in turn within each run, to compare them under the same load),
//      BENCH_NODE_OPTIONS (added to the server's NODE_OPTIONS, to try flags), BENCH_TAG (results file suffix).
// The box may be shared: wall times move with its load (printed); CPU time and RSS are the robust figures.

import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import {
  apiCall,
  BUILT_CLI,
  ChildProcesses,
  freePort,
  numberFromEnv,
  rssMb,
} from '../scripts/local-harness.ts';

const ROOT = new URL('..', import.meta.url).pathname;
const RUNS = numberFromEnv('BENCH_RUNS', 5, 1);
const ENTRIES = (process.env.BENCH_ENTRY || BUILT_CLI).split(',');
const ADMIN = { email: 'admin@embedded-start.local', password: 'admin-embedded-start-password' };

const { start, stop, stopAll } = new ChildProcesses(ROOT);

type Start = 'first start' | 'restart';
type Reading = { healthyMs: number; cpuMs: number; rssStartMb: number; rssLoadedMb: number };

/** utime + stime + cutime + cstime: a first start's initdb runs in a child the server waits for. */
function cpuWithChildrenMs(pid: number | undefined): number {
  if (pid === undefined) return Number.NaN;
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return fields.slice(11, 15).reduce((sum, ticks) => sum + Number(ticks), 0) * 10;
}

async function healthy(base: string, exited: () => boolean): Promise<void> {
  const until = Date.now() + 120_000;
  while (Date.now() < until) {
    if (exited()) throw new Error('the server exited before it was healthy');
    try {
      const response = await fetch(`${base}/server/health`, { signal: AbortSignal.timeout(2000) });
      await response.arrayBuffer();
      if (response.status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error(`${base} not healthy within 2 min`);
}

/** One login, then 100 single-item writes and 100 list reads, one at a time (a newcomer trying the API). */
async function lightLoad(base: string, kind: Start): Promise<void> {
  const { access_token: token } = JSON.parse(
    await apiCall('POST', `${base}/auth/login`, undefined, ADMIN),
  ) as {
    access_token: string;
  };
  if (kind === 'first start') {
    await apiCall('POST', `${base}/collections`, token, {
      collection: 'notes',
      fields: [
        { field: 'id', type: 'integer', schema: { is_primary_key: true } },
        { field: 'title', type: 'string' },
        { field: 'score', type: 'integer' },
      ],
    });
  }
  for (let i = 0; i < 100; i++) {
    await apiCall('POST', `${base}/items/notes`, token, { title: `note ${i}`, score: i });
    await apiCall('GET', `${base}/items/notes?limit=100&sort=-score&filter[score][_gte]=${i % 50}`, token);
  }
}

async function once(entry: string, dataDir: string, kind: Start): Promise<Reading> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const { DATABASE_URL: _url, LOG_LEVEL: _level, ...inherited } = process.env;
  const extraNodeOptions = process.env.BENCH_NODE_OPTIONS;
  const started = performance.now();
  const server = start([entry, 'serve'], {
    env: {
      ...inherited,
      ...(extraNodeOptions ? { NODE_OPTIONS: `${inherited.NODE_OPTIONS ?? ''} ${extraNodeOptions}` } : {}),
      NODE_ENV: 'production',
      DATA_DIR: dataDir,
      SECRET: randomBytes(32).toString('hex'),
      HOST: '127.0.0.1',
      PORT: String(port),
      ADMIN_EMAIL: ADMIN.email,
      ADMIN_PASSWORD: ADMIN.password,
      LOGIN_THROTTLE: 'false',
    },
    logFile: join(dataDir, '..', `${kind === 'first start' ? 'first' : 'restart'}.log`),
  });
  try {
    await healthy(base, () => server.exitCode !== null);
    const healthyMs = performance.now() - started;
    const cpuMs = cpuWithChildrenMs(server.pid);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const rssStartMb = rssMb(server.pid) ?? Number.NaN;
    await lightLoad(base, kind);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const rssLoadedMb = rssMb(server.pid) ?? Number.NaN;
    return { healthyMs, cpuMs, rssStartMb, rssLoadedMb };
  } finally {
    await stop(server, 15_000);
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

const whole = (n: number) => n.toFixed(0);
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' / ');

async function main(): Promise<void> {
  for (const entry of ENTRIES)
    if (!existsSync(resolve(ROOT, entry))) throw new Error(`${entry} is missing: make build`);
  const loadBefore = load();
  const readings = new Map<string, Reading[]>();
  const rows: string[] = [];
  for (let run = 1; run <= RUNS; run++) {
    for (const entry of ENTRIES) {
      const work = mkdtempSync(join(tmpdir(), 'datagate-embedded-start-'));
      try {
        for (const kind of ['first start', 'restart'] as const) {
          const r = await once(entry, join(work, 'data'), kind);
          const key = `| ${entry} | ${kind} |`;
          readings.set(key, [...(readings.get(key) ?? []), r]);
          const row = `| ${run} ${key} ${whole(r.healthyMs)} | ${whole(r.cpuMs)} | ${whole(r.rssStartMb)} | ${whole(r.rssLoadedMb)} | ${load()} |`;
          rows.push(row);
          process.stderr.write(`${row}\n`);
        }
      } finally {
        rmSync(work, { recursive: true, force: true });
      }
    }
  }
  const medians = [...readings].map(([key, of]) => {
    const mid = (pick: (r: Reading) => number) => whole(median(of.map(pick)));
    return `${key} ${mid((r) => r.healthyMs)} | ${mid((r) => r.cpuMs)} | ${mid((r) => r.rssStartMb)} | ${mid((r) => r.rssLoadedMb)} |`;
  });
  const date = new Date().toISOString().slice(0, 10);
  const tag = process.env.BENCH_TAG ? `-${process.env.BENCH_TAG}` : '';
  const report = `# Embedded start — ${date}${tag ? ` (${tag.slice(1)})` : ''}

\`make bench-start\` (bench/embedded-start.ts): \`node <entry> serve\` on the embedded database (no DATABASE_URL),
NODE_ENV=production${process.env.BENCH_NODE_OPTIONS ? `, NODE_OPTIONS ${process.env.BENCH_NODE_OPTIONS}` : ''}, ${RUNS} runs of a first start on a fresh data directory and a restart on it${ENTRIES.length > 1 ? ', the entries in turn within each run' : ''}.
Box: ${cpus().length} cores; load average (1/5/15 min) ${loadBefore} before, ${load()} after. Wall times move with
the load; the server's CPU until healthy (initdb's child included) and RSS are the robust figures.

## Medians

| entry | start | healthy after ms | CPU ms until healthy | RSS after start MB | RSS after 200 requests MB |
|---|---|---|---|---|---|
${medians.join('\n')}

## Runs

| run | entry | start | healthy after ms | CPU ms until healthy | RSS after start MB | RSS after 200 requests MB | load average after |
|---|---|---|---|---|---|---|---|
${rows.join('\n')}
`;
  mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
  const file = join(ROOT, `bench/results/${date}-embedded-start${tag}.md`);
  writeFileSync(file, report);
  process.stdout.write(report);
  process.stderr.write(`written to ${file}\n`);
}

main()
  .catch((error: Error) => {
    process.stderr.write(`${error.stack ?? error.message}\n`);
    process.exitCode = 1;
  })
  .finally(() => stopAll(3000));
