// The memory proof of issue 12 ("Bounded responses"): 1,000 rows of ~100 KB on PostgreSQL, then ten
// concurrent reads of the whole table (a ~100 MB page each: refused by the response byte budget) and ten
// concurrent pages of the largest size the budget lets through, while the server's RSS is sampled.
// PASS when every answer is as expected and the peak RSS stays under the stated bound. See soak/README.md.
// Run: make build && node --import tsx soak/memory-bound.ts
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  assertLoopback,
  BUILT_CLI,
  ChildProcesses,
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
const env = process.env;
const SERVER_URL = env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const ROWS = 1000;
/** Each row's `body`: 100,000 ASCII characters, so ~100 KB of JSON. */
const ROW_BYTES = 100_000;
const CONCURRENT = 10;
/** Rounds of the concurrent max-size pages, so the heap reaches its working size. */
const ROUNDS = numberFromEnv('STRESS_ROUNDS', 5, 1);
const MIB = 1024 * 1024;
/** The server's budget: its default unless the variable says otherwise. */
const BUDGET = Number(env.QUERY_RESPONSE_MAX_BYTES ?? 16 * MIB);
/**
 * The stated bound: the idle server, plus five times the budget for each concurrent answer. An answer of
 * the budget's size is held about four times over while it passes through: pg's receive buffer (which
 * grows by doubling, so up to twice the message), the decoded string, and the socket's copy of it; the
 * fifth is slack for the garbage collector, which frees them in its own time.
 */
const COPIES = 5;
const BOUND_MB = (idle: number) => idle + (CONCURRENT * COPIES * BUDGET) / MIB;
const ADMIN = { email: 'admin@stress.local', password: 'admin-stress-password' };

const { start, run, stopAll } = new ChildProcesses(ROOT);
let database: string | null = null;
let workDir: string | null = null;

function log(message: string): void {
  process.stderr.write(`[memory-bound] ${message}\n`);
}

async function cleanUp(): Promise<void> {
  await stopAll(3000);
  if (database) {
    const name = database;
    await dropDatabase(SERVER_URL, name).catch((error: Error) =>
      log(`could not drop database ${name}: ${error.message}`),
    );
  }
  if (workDir) rmSync(workDir, { recursive: true, force: true });
}

type Answer = { status: number; bytes: number; code?: string };

async function get(base: string, path: string, token: string): Promise<Answer> {
  const response = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${token}` } });
  const body = Buffer.from(await response.arrayBuffer());
  if (response.status < 400) return { status: response.status, bytes: body.length };
  const code = (JSON.parse(body.toString()) as { errors: [{ extensions: { code: string } }] }).errors[0]
    .extensions.code;
  return { status: response.status, bytes: body.length, code };
}

/** Runs `work` while sampling the server's RSS every 50 ms; returns its result and the peak. */
async function sampled<T>(pid: number, work: () => Promise<T>): Promise<{ result: T; peak: number }> {
  let peak = rssMb(pid) ?? 0;
  const sampler = setInterval(() => {
    peak = Math.max(peak, rssMb(pid) ?? 0);
  }, 50);
  try {
    const result = await work();
    peak = Math.max(peak, rssMb(pid) ?? 0);
    return { result, peak };
  } finally {
    clearInterval(sampler);
  }
}

const mb = (value: number | null) => (value === null ? '?' : `${value.toFixed(0)} MB`);

async function main(): Promise<boolean> {
  assertLoopback(SERVER_URL, 'memory stress');
  if (!existsSync(join(ROOT, BUILT_CLI))) throw new Error(`${BUILT_CLI} is missing: run \`make build\``);
  workDir = mkdtempSync(join(tmpdir(), 'datagate-memory-'));
  database = `datagate_memory_${process.pid}`;
  const name = database;
  await createDatabase(SERVER_URL, name);
  const url = databaseUrl(SERVER_URL, name);
  const port = await freePort();
  const serverEnv = productionServerEnv({ databaseUrl: url, port, admin: ADMIN, logLevel: 'warn' });
  const cli = (...args: string[]) => run(process.execPath, [BUILT_CLI, ...args], { env: serverEnv });
  await cli('migrate');
  await cli('bootstrap');
  const token = randomBytes(32).toString('hex');
  await cli('users', 'token', '--email', ADMIN.email, '--token', token);

  const server = start([BUILT_CLI, 'serve'], { env: serverEnv, logFile: join(workDir, 'datagate.log') });
  const base = `http://127.0.0.1:${port}`;
  await waitFor(`${base}/server/health`, server);
  const created = await fetch(`${base}/collections`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      collection: 'bulky',
      fields: [
        { field: 'id', type: 'integer', schema: { is_primary_key: true } },
        { field: 'label', type: 'string' },
        { field: 'body', type: 'text' },
      ],
    }),
  });
  if (created.status !== 200)
    throw new Error(`POST /collections → ${created.status} ${await created.text()}`);
  await withClient(url, (client) =>
    client.query(
      `insert into bulky (label, body) select 'row ' || g, repeat(md5(g::text), $1 / 32)
       from generate_series(1, $2) as g`,
      [ROW_BYTES, ROWS],
    ),
  );
  const pid = server.pid!;
  // Warm the paths up once, so the idle figure includes the code a request loads.
  await get(base, '/items/bulky?limit=1', token);
  const idle = rssMb(pid) ?? 0;
  const bound = BOUND_MB(idle);
  log(`server idle at ${mb(idle)}; budget ${BUDGET} bytes; bound ${mb(bound)}`);

  // The finding: ten reads of the whole table at once, ~100 MB of JSON each.
  const whole = await sampled(pid, () =>
    Promise.all(Array.from({ length: CONCURRENT }, () => get(base, `/items/bulky?limit=${ROWS}`, token))),
  );
  const refused = whole.result.every(
    (answer) => answer.status === 400 && answer.code === 'RESPONSE_TOO_LARGE',
  );
  log(`${CONCURRENT} × limit=${ROWS}: ${statuses(whole.result)}, peak RSS ${mb(whole.peak)}`);

  // The largest pages the budget lets through: as many rows as fit, ten at once, several rounds.
  const fitting = Math.floor((BUDGET - 2) / (ROW_BYTES + 64));
  const pages = await sampled(pid, async () => {
    const answers: Answer[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      answers.push(
        ...(await Promise.all(
          Array.from({ length: CONCURRENT }, (_, i) =>
            get(base, `/items/bulky?limit=${fitting}&offset=${(i * 7) % (ROWS - fitting)}`, token),
          ),
        )),
      );
    }
    return answers;
  });
  const served = pages.result.every((answer) => answer.status === 200 && answer.bytes <= BUDGET);
  const largest = Math.max(...pages.result.map((answer) => answer.bytes));
  log(
    `${ROUNDS} rounds of ${CONCURRENT} × limit=${fitting} (largest ${(largest / MIB).toFixed(1)} MiB): ${statuses(pages.result)}, peak RSS ${mb(pages.peak)}`,
  );
  const after = rssMb(pid);
  const pass = refused && served && whole.peak <= bound && pages.peak <= bound;
  const report = [
    `memory bound (issue 12): ${pass ? 'PASS' : 'FAIL'}`,
    `  rows: ${ROWS} of ${ROW_BYTES} bytes; budget (query.responseMaxBytes): ${BUDGET} bytes`,
    `  RSS idle ${mb(idle)}; bound ${mb(bound)} (idle + ${CONCURRENT} × ${COPIES} × budget)`,
    `  ${CONCURRENT} concurrent limit=${ROWS} (~${((ROWS * ROW_BYTES) / MIB).toFixed(0)} MiB each): ${statuses(whole.result)}; peak RSS ${mb(whole.peak)}`,
    `  ${ROUNDS} × ${CONCURRENT} concurrent limit=${fitting} (${(largest / MIB).toFixed(1)} MiB each): ${statuses(pages.result)}; peak RSS ${mb(pages.peak)}`,
    `  RSS after: ${mb(after)}`,
  ].join('\n');
  console.log(report);
  return pass;
}

function statuses(answers: ReadonlyArray<Answer>): string {
  const counts = new Map<string, number>();
  for (const answer of answers) {
    const key = answer.code ? `${answer.status} ${answer.code}` : String(answer.status);
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts].map(([key, count]) => `${count}× ${key}`).join(', ');
}

main()
  .then(async (pass) => {
    await cleanUp();
    process.exit(pass ? 0 : 1);
  })
  .catch(async (error: Error) => {
    log(error.stack ?? error.message);
    await cleanUp();
    process.exit(2);
  });
