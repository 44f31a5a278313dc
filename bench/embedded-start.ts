// What a newcomer meets first: `datagate serve` on the embedded database (PGlite), no DATABASE_URL.
// Starts the built server on a fresh data directory, times start → healthy, reads its RSS, runs 200 light
// requests (100 single-item writes, 100 list reads on a small collection), reads RSS again; then stops it
// and does the same after a restart on the same directory. Repeats the whole sequence BENCH_ROUNDS times.
// Run: node --import tsx bench/embedded-footprint.ts   (after `npx tsc -p tsconfig.build.json`)
// Wall-clock start times depend on what else the cores do; the server's own CPU until healthy does less
// (a first start's initdb runs in a child process whose CPU is not counted there).
// env: BENCH_ROUNDS (default 3), BENCH_NODE_OPTIONS (added to the server's NODE_OPTIONS, to try flags).

import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BUILT_CLI, ChildProcesses, cpuTimeMs, freePort, rssMb } from '../scripts/local-harness.ts';

const ROOT = new URL('..', import.meta.url).pathname;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const ADMIN = { email: 'admin@footprint.local', password: 'admin-footprint-password' };

const { start, stop, stopAll } = new ChildProcesses(ROOT);

type Reading = {
  healthyMs: number;
  healthyCpuMs: number;
  rssStartMb: number;
  rssLoadedMb: number;
  rssPeakMb: number;
};

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
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`${base} not healthy within 2 min`);
}

async function call(base: string, method: string, path: string, token?: string, body?: unknown) {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (response.status >= 300) throw new Error(`${method} ${path} → ${response.status} ${text.slice(0, 200)}`);
  return text;
}

/** One login, then 100 single-item writes and 100 list reads, one at a time (a newcomer trying the API). */
async function lightLoad(base: string, first: boolean): Promise<void> {
  const { access_token: token } = JSON.parse(await call(base, 'POST', '/auth/login', undefined, ADMIN)) as {
    access_token: string;
  };
  if (first) {
    await call(base, 'POST', '/collections', token, {
      collection: 'notes',
      fields: [
        { field: 'id', type: 'integer', schema: { is_primary_key: true } },
        { field: 'title', type: 'string' },
        { field: 'score', type: 'integer' },
      ],
    });
  }
  for (let i = 0; i < 100; i++) {
    await call(base, 'POST', '/items/notes', token, { title: `note ${i}`, score: i });
    await call(base, 'GET', `/items/notes?limit=100&sort=-score&filter[score][_gte]=${i % 50}`, token);
  }
}

async function once(dataDir: string, first: boolean): Promise<Reading> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const { DATABASE_URL: _url, LOG_LEVEL: _level, ...inherited } = process.env;
  const extraNodeOptions = process.env.BENCH_NODE_OPTIONS;
  const started = performance.now();
  const server = start([BUILT_CLI, 'serve'], {
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
    logFile: join(dataDir, `..`, `${first ? 'first' : 'restart'}.log`),
  });
  let peak = 0;
  const sampler = setInterval(() => {
    peak = Math.max(peak, rssMb(server.pid) ?? 0);
  }, 20);
  try {
    await healthy(base, () => server.exitCode !== null);
    const healthyMs = performance.now() - started;
    const healthyCpuMs = cpuTimeMs(server.pid) ?? Number.NaN;
    // RSS "right after start": once start-up's own garbage has had a moment to be collected.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const rssStartMb = rssMb(server.pid) ?? Number.NaN;
    await lightLoad(base, first);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const rssLoadedMb = rssMb(server.pid) ?? Number.NaN;
    return { healthyMs, healthyCpuMs, rssStartMb, rssLoadedMb, rssPeakMb: peak };
  } finally {
    clearInterval(sampler);
    await stop(server, 15_000);
  }
}

const fmt = (n: number) => n.toFixed(0).padStart(6);

if (!existsSync(join(ROOT, BUILT_CLI)))
  throw new Error(`${BUILT_CLI} is missing: npx tsc -p tsconfig.build.json`);
const lines = [
  '| round | start | healthy after ms | server CPU ms until healthy | RSS after start MB | RSS after 200 requests MB | peak RSS MB |',
  '|---|---|---|---|---|---|---|',
];
try {
  for (let round = 1; round <= ROUNDS; round++) {
    const work = mkdtempSync(join(tmpdir(), 'datagate-footprint-'));
    try {
      const dataDir = join(work, 'data');
      for (const first of [true, false]) {
        const r = await once(dataDir, first);
        const line = `| ${round} | ${first ? 'first' : 'restart'} | ${fmt(r.healthyMs)} | ${fmt(r.healthyCpuMs)} | ${fmt(r.rssStartMb)} | ${fmt(r.rssLoadedMb)} | ${fmt(r.rssPeakMb)} |`;
        lines.push(line);
        process.stderr.write(`${line}\n`);
      }
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  }
  process.stdout.write(`${lines.join('\n')}\n`);
} finally {
  await stopAll(3000);
}
