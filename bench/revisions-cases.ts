// The write cases of `make bench`, each with revisions on and off (issue 17: create and update throughput
// with revisions ≥ 80 % of without). Each setting gets a server and a fresh copy of the seeded database of
// its own, so neither inherits the other's grown tables, dead rows or history. Both servers run side by
// side and take turns in short slices of a fixed number of requests, in alternating order (off, on | on,
// off | …): a load burst of the shared box then falls on both settings rather than deciding the ratio, and
// both databases have taken the same writes at the same point of the run. The report gives each round's
// on/off ratio and their median.

import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { cpuTimeMs, freePort, rssMb, treeTotal, waitFor, withClient } from '../scripts/local-harness.ts';

export const WRITE_CASES = ['create_batch', 'update_batch'] as const;
export type WriteCase = (typeof WRITE_CASES)[number];

/** `cargos`' `meta.accountability` (docs/api.md §14): `all` (the default) records revisions, null nothing. */
const SETTINGS = { off: null, on: 'all' } as const;
export type Setting = keyof typeof SETTINGS;

type WriteLoad = { path: string; method: 'POST' | 'PATCH'; body: string };

/** What the cases need of the harness (bench/run.ts), which owns the processes and databases. */
export type RevisionsHarness = {
  /** The seeded database the settings' databases are copied from; nothing may be connected to it. */
  template: string;
  cases: ReadonlyArray<WriteCase>;
  /** Slices per setting, each `sliceRequests` long; the first slice of each is a discarded warm-up. */
  rounds: number;
  sliceRequests: number;
  connections: number;
  /** A directory for the servers' logs. */
  dir: string;
  /** Node's arguments to start a server: the built CLI, `serve`, and any flags before them. */
  serverArgs: ReadonlyArray<string>;
  /** The admin's static token (set in the template). */
  token: string;
  serverEnv(databaseUrl: string, port: number): NodeJS.ProcessEnv;
  /** A database copied from `template`, and its URL; dropped again with `dropDatabase`. */
  copyDatabase(name: string, template: string): Promise<string>;
  dropDatabase(name: string): Promise<void>;
  start(args: string[], options: { env: NodeJS.ProcessEnv; logFile: string }): ChildProcess;
  stop(child: ChildProcess, graceMs?: number): Promise<unknown>;
  expectOk(method: string, url: string, options: { token?: string; body?: unknown }): Promise<string>;
  /** CPU time so far of each PostgreSQL backend connected to `database`, by pid (ms). */
  backendsCpuMs(database: string): Promise<Map<number, number>>;
  log(message: string): void;
};

/** One slice, or their sum. */
type Tally = {
  requests: number;
  seconds: number;
  serverCpuMs: number;
  dbCpuMs: number;
  /** Errors, timeouts and non-2xx answers. */
  failed: number;
};

export type SettingFigures = {
  rps: number;
  p50: number;
  p99: number;
  /** Server (process tree) and PostgreSQL backends' CPU per request. */
  cpuMs: number;
  dbCpuMs: number;
  requests: number;
  failed: number;
  statuses: Record<number, number>;
  rssMaxMb: number | null;
};

export type RevisionsCase = {
  name: WriteCase;
  /** Each round's req/s of both settings, in the order they ran. */
  rounds: Array<{ order: ReadonlyArray<Setting>; off: number; on: number }>;
  off: SettingFigures;
  on: SettingFigures;
};

export type RevisionsResult = { cases: RevisionsCase[]; problems: string[] };

export async function benchRevisions(harness: RevisionsHarness): Promise<RevisionsResult> {
  const cases: RevisionsCase[] = [];
  const problems: string[] = [];
  for (const name of harness.cases) cases.push(await benchCase(harness, name, problems));
  return { cases, problems };
}

type Side = {
  setting: Setting;
  database: string;
  server: ChildProcess;
  base: string;
  logFile: string;
  load: WriteLoad;
  total: Tally;
  latencies: number[];
  /** How many of each non-2xx status, over every slice. */
  statuses: Record<number, number>;
  /** The server's peak RSS (process tree) over the counted slices, sampled every 100 ms. */
  rssMaxMb: number | null;
};

async function benchCase(
  harness: RevisionsHarness,
  name: WriteCase,
  problems: string[],
): Promise<RevisionsCase> {
  const sides: Partial<Record<Setting, Side>> = {};
  try {
    for (const setting of ['off', 'on'] as const) {
      const database = `${harness.template}_${setting}`;
      const url = await harness.copyDatabase(database, harness.template);
      const port = await freePort();
      const logFile = join(harness.dir, `${name}-${setting}.log`);
      const server = harness.start([...harness.serverArgs], { env: harness.serverEnv(url, port), logFile });
      const base = `http://127.0.0.1:${port}`;
      sides[setting] = {
        setting,
        database,
        server,
        base,
        logFile,
        load: await loadOf(name, url),
        total: { requests: 0, seconds: 0, serverCpuMs: 0, dbCpuMs: 0, failed: 0 },
        latencies: [],
        statuses: {},
        rssMaxMb: null,
      };
      await waitFor(`${base}/server/health`, server);
      await harness.expectOk('PATCH', `${base}/collections/cargos`, {
        token: harness.token,
        body: { meta: { accountability: SETTINGS[setting] } },
      });
    }
    const rounds: RevisionsCase['rounds'] = [];
    // Round 0 warms both up and is not counted.
    for (let round = 0; round <= harness.rounds; round++) {
      const order: Setting[] = round % 2 === 0 ? ['off', 'on'] : ['on', 'off'];
      const rps: Partial<Record<Setting, number>> = {};
      for (const setting of order) {
        const side = sides[setting]!;
        const slice = await runSlice(harness, side, round > 0);
        rps[setting] = slice.requests / slice.seconds;
        if (round > 0) add(side.total, slice);
      }
      if (round > 0) rounds.push({ order, off: rps.off!, on: rps.on! });
      harness.log(
        `${name}${round === 0 ? ' (warm-up)' : `, round ${round} of ${harness.rounds}`}: off ${rps.off!.toFixed(1)} req/s, on ${rps.on!.toFixed(1)} req/s`,
      );
    }
    return { name, rounds, off: figures(sides.off!), on: figures(sides.on!) };
  } finally {
    for (const side of Object.values(sides)) {
      await harness.stop(side.server);
      const errors = readFileSync(side.logFile, 'utf8')
        .split('\n')
        .filter((line) => /"level":(50|60)/.test(line));
      if (errors.length > 0)
        problems.push(
          `${name}, revisions ${side.setting}: the server logged ${errors.length} error lines, first: ${errors[0]!.slice(0, 300)}`,
        );
      await harness.dropDatabase(side.database);
    }
  }
}

/**
 * `sliceRequests` requests over `connections` connections, all answered before it returns, so the server is
 * idle when the other one's slice starts. CPU from /proc: the server's process tree and the PostgreSQL
 * backends of its database.
 */
async function runSlice(harness: RevisionsHarness, side: Side, counted: boolean): Promise<Tally> {
  const cpuBefore = treeTotal(side.server.pid, cpuTimeMs) ?? 0;
  const dbBefore = await harness.backendsCpuMs(side.database);
  const started = performance.now();
  // Timed to the last answer: autocannon notices that the amount is reached on its once-a-second tick.
  let lastAnswer = started;
  // The peak RSS of the counted slices; every answer of a slice is in when autocannon resolves.
  const sampler = setInterval(() => {
    const rss = counted ? treeTotal(side.server.pid, rssMb) : null;
    if (rss !== null && (side.rssMaxMb === null || rss > side.rssMaxMb)) side.rssMaxMb = rss;
  }, 100);
  let result: Awaited<ReturnType<typeof autocannon>>;
  try {
    result = await autocannon({
      url: `${side.base}${side.load.path}`,
      connections: harness.connections,
      amount: harness.sliceRequests,
      method: side.load.method,
      headers: { authorization: `Bearer ${harness.token}`, 'content-type': 'application/json' },
      body: side.load.body,
      timeout: 60,
    }).on('response', (_client, status, _bytes, ms) => {
      lastAnswer = performance.now();
      if (counted && status < 300) side.latencies.push(ms);
      if (counted && status >= 300) side.statuses[status] = (side.statuses[status] ?? 0) + 1;
    });
  } finally {
    clearInterval(sampler);
  }
  const serverCpuMs = (treeTotal(side.server.pid, cpuTimeMs) ?? 0) - cpuBefore;
  const seconds = (lastAnswer - started) / 1000;
  const dbAfter = await harness.backendsCpuMs(side.database);
  let dbCpuMs = 0;
  for (const [pid, ms] of dbAfter) dbCpuMs += ms - (dbBefore.get(pid) ?? 0);
  return {
    requests: result.requests.total,
    seconds,
    serverCpuMs,
    dbCpuMs,
    failed: result.errors + result.timeouts + result.non2xx,
  };
}

function add(total: Tally, slice: Tally): void {
  total.requests += slice.requests;
  total.seconds += slice.seconds;
  total.serverCpuMs += slice.serverCpuMs;
  total.dbCpuMs += slice.dbCpuMs;
  total.failed += slice.failed;
}

function figures(side: Side): SettingFigures {
  const { total } = side;
  const sorted = side.latencies.sort((a, b) => a - b);
  const percentile = (p: number) =>
    sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? Number.NaN;
  return {
    rps: total.requests / total.seconds,
    p50: percentile(0.5),
    p99: percentile(0.99),
    cpuMs: total.serverCpuMs / total.requests,
    dbCpuMs: total.dbCpuMs / total.requests,
    requests: total.requests,
    failed: total.failed,
    statuses: side.statuses,
    rssMaxMb: side.rssMaxMb,
  };
}

async function loadOf(name: WriteCase, url: string): Promise<WriteLoad> {
  if (name === 'create_batch') {
    const items = Array.from({ length: 100 }, (_, i) => ({
      description: `Bench cargo #${i}`,
      temperature: (i % 50) - 25,
      is_deleted: false,
    }));
    return { path: '/items/cargos', method: 'POST', body: JSON.stringify(items) };
  }
  // The same 100 rows each time: every request locks them, so the requests queue on the row locks alike
  // with and without revisions, and the difference is the recording's cost.
  const keys = await withClient(url, async (client) => {
    const { rows } = await client.query<{ keys: string[] }>(
      'select json_agg(id order by id) as keys from (select id from cargos order by id limit 100) k',
    );
    return rows[0]!.keys;
  });
  return {
    path: '/items/cargos',
    method: 'PATCH',
    body: JSON.stringify({ keys, data: { temperature: 3 } }),
  };
}

/** The on/off ratio of one round. */
export const onOff = (round: { off: number; on: number }) => round.on / round.off;

export function median(values: ReadonlyArray<number>): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}
