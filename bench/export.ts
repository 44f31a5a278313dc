// Export throughput and server memory (issue 17): N sample cargos on a throwaway PostgreSQL database,
// exported over HTTP in each format by the built server, and once by the CLI. Not a test.
// Run: npm run build && node --import tsx bench/export.ts   (EXPORT_ROWS=1000000 by default)

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import {
  assertLoopback,
  BUILT_CLI,
  ChildProcesses,
  cpuTimeMs,
  createDatabase,
  databaseUrl,
  dropDatabase,
  freePort,
  numberFromEnv,
  productionServerEnv,
  rssMb,
  waitFor,
  withClient,
} from '../scripts/local-harness.ts';

const ROOT = new URL('..', import.meta.url).pathname;
const ROWS = numberFromEnv('EXPORT_ROWS', 1_000_000, 1);
const SERVER_URL = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const RESULTS = process.env.EXPORT_RESULTS ?? 'bench/results/2026-11-26-export.md';
const ADMIN = { email: 'admin@bench.local', password: 'admin-bench-password' };

assertLoopback(SERVER_URL, 'bench/export.ts');

const log = (message: string) => process.stderr.write(`[export bench] ${message}\n`);
const { start, run, stopAll } = new ChildProcesses(ROOT);
const database = `datagate_bench_export_${process.pid}`;
const workDir = mkdtempSync(join(tmpdir(), 'datagate-export-bench-'));

type Result = {
  name: string;
  rows: number;
  bytes: number;
  seconds: number;
  rssMaxMb: number | null;
  /** The server's CPU time (user + system) over the case. */
  cpuSeconds: number | null;
};

/** Peak RSS of `pid` while `work` runs, sampled every 50 ms. */
async function sampled<T>(pid: number | undefined, work: () => Promise<T>): Promise<[T, number | null]> {
  let peak = rssMb(pid);
  const timer = setInterval(() => {
    const now = rssMb(pid);
    if (now !== null && (peak === null || now > peak)) peak = now;
  }, 50);
  try {
    return [await work(), peak];
  } finally {
    clearInterval(timer);
  }
}

/** Reads a whole download as bytes, counting its records (line breaks) and discarding it. */
async function download(url: string, token: string): Promise<{ bytes: number; lines: number }> {
  const response = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  if (response.status !== 200) throw new Error(`${url} → ${response.status} ${await response.text()}`);
  let bytes = 0;
  let lines = 0;
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    bytes += chunk.length;
    for (const byte of chunk) if (byte === 10) lines++;
  }
  return { bytes, lines };
}

async function main(): Promise<string[]> {
  await createDatabase(SERVER_URL, database);
  const url = databaseUrl(SERVER_URL, database);
  const port = await freePort();
  const env = productionServerEnv({ databaseUrl: url, port, admin: ADMIN, logLevel: 'warn' });
  await run(process.execPath, [BUILT_CLI, 'bootstrap'], { env });
  log(`sample cargos: ${ROWS.toLocaleString('en')} rows`);
  await run(process.execPath, [BUILT_CLI, 'sample', 'cargos', '--rows', String(ROWS)], {
    env,
    timeoutMs: 1_800_000,
  });
  await withClient(url, (client) => client.query('vacuum analyze'));
  const token = (
    await run(process.execPath, [BUILT_CLI, 'users', 'token', '--email', ADMIN.email], { env })
  ).trim();
  const server = start([BUILT_CLI, 'serve'], { env, logFile: join(workDir, 'server.log') });
  const base = `http://127.0.0.1:${port}`;
  await waitFor(`${base}/server/health`, server);
  const idleMb = rssMb(server.pid);
  const results: Result[] = [];
  const cases: Array<[string, string]> = [
    ['csv, every field', '/items/cargos?export=csv'],
    ['json, every field', '/items/cargos?export=json'],
    ['ndjson, every field', '/items/cargos?export=ndjson'],
    [
      'csv, filtered, nested shipment number',
      '/items/cargos?export=csv&fields=id,temperature,shipment.number&filter={"is_deleted":{"_eq":false}}',
    ],
  ];
  for (const [name, path] of cases) {
    log(name);
    const began = performance.now();
    const cpuBefore = cpuTimeMs(server.pid);
    const [file, peak] = await sampled(server.pid, () => download(`${base}${path}`, token));
    const seconds = (performance.now() - began) / 1000;
    const cpuAfter = cpuTimeMs(server.pid);
    const cpuSeconds = cpuBefore === null || cpuAfter === null ? null : (cpuAfter - cpuBefore) / 1000;
    // CSV: a header line; JSON: no line breaks at all (rows counted from NDJSON's lines instead).
    const rows = name.startsWith('csv') ? file.lines - 1 : name.startsWith('ndjson') ? file.lines : ROWS;
    results.push({ name: `HTTP ${name}`, rows, bytes: file.bytes, seconds, rssMaxMb: peak, cpuSeconds });
  }
  log('CLI csv');
  const cliOut = join(workDir, 'cargos.csv');
  const began = performance.now();
  const cli = await run('sh', ['-c', `node ${BUILT_CLI} export cargos --format csv > ${cliOut}`], {
    env,
    timeoutMs: 1_800_000,
  });
  const cliSeconds = (performance.now() - began) / 1000;
  results.push({
    name: 'CLI csv, every field (process start included)',
    rows: ROWS,
    bytes: 0,
    seconds: cliSeconds,
    rssMaxMb: null,
    cpuSeconds: null,
  });
  log(cli.trim());
  const finalMb = rssMb(server.pid);
  return report(results, idleMb, finalMb);
}

function report(results: Result[], idleMb: number | null, finalMb: number | null): string[] {
  const fmt = (n: number | null, digits = 0) =>
    n === null ? '–' : n.toLocaleString('en', { maximumFractionDigits: digits });
  return [
    `# Export: ${ROWS.toLocaleString('en')} cargos on PostgreSQL (bench/export.ts)`,
    '',
    `${new Date().toISOString()}, ${cpus().length} cores (${cpus()[0]?.model ?? '?'}), ${(totalmem() / 1024 ** 3).toFixed(1)} GB, Node ${process.version}.`,
    'The box was shared with other helpers running builds and tests at the time: read the rates as orders of magnitude.',
    'Server: the built CLI (`node dist/bundle/datagate.js serve`), NODE_ENV=production, default `export.*` (1,000-row pages), LOG_LEVEL=warn;',
    'the client (this script) reads every byte and discards it. Sample cargos: 7 columns (uuid key, two timestamps, text, float, boolean, shipment key).',
    '',
    '| export | rows | MB | seconds | rows/s | server peak RSS MB | server CPU s |',
    '|---|---|---|---|---|---|---|',
    ...results.map(
      (r) =>
        `| ${r.name} | ${fmt(r.rows)} | ${r.bytes ? fmt(r.bytes / 1024 ** 2, 1) : '–'} | ${fmt(r.seconds, 1)} | ${fmt(r.rows / r.seconds)} | ${fmt(r.rssMaxMb)} | ${fmt(r.cpuSeconds, 1)} |`,
    ),
    '',
    `Server RSS after start: ${fmt(idleMb)} MB; after the exports: ${fmt(finalMb)} MB. Target: peak RSS < 200 MB.`,
  ];
}

main()
  .then((lines) => {
    writeFileSync(resolve(ROOT, RESULTS), `${lines.join('\n')}\n`);
    process.stdout.write(`${lines.join('\n')}\n`);
  })
  .finally(async () => {
    await stopAll(3000);
    await dropDatabase(SERVER_URL, database).catch((error: Error) =>
      log(`drop ${database}: ${error.message}`),
    );
    rmSync(workDir, { recursive: true, force: true });
  });
