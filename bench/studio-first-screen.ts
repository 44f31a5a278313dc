// `make bench-studio`: issue 20's "the first screen of a 1,000,000-row collection renders in under a second".
// On a throwaway PostgreSQL database with BENCH_ROWS (1,000,000) sample cargos, the built server and the
// built studio, headless Chromium logs in (the admin, then an Operator whose rule hides deleted rows and
// most fields) and opens cargos, BENCH_RUNS (10) times after 2 warm-ups: from the click on the collection's
// link to the table's rows and estimated count painted, timed inside the page. Then BENCH_COLD_RUNS (5) cold
// visits, each in a fresh browser context (no cache): the address of the table typed in, the login form, the
// password sent, the table painted. Also: the statement the table's page runs and its plan (EXPLAIN
// ANALYZE), every request the table made checked for an exact count or an offset page, and the studio's
// scripts and styles gzipped. See bench/README.md ("Other measurements").
// Run: make bench-studio   (or: node --import tsx bench/studio-first-screen.ts after `make build`)

import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { type Browser, chromium, type Page } from 'playwright-core';
import {
  apiCall,
  assertLoopback,
  BUILT_CLI,
  ChildProcesses,
  createOperator,
  databaseUrl,
  freePort,
  numberFromEnv,
  productionServerEnv,
  quoteId,
  roleIdByName,
  waitFor,
  withClient,
} from '../scripts/local-harness.ts';
import { CHROMIUM, CHROMIUM_ARGS } from '../tests/support/chromium.ts';
import type { PlanCase } from './plan.ts';

const ROOT = new URL('..', import.meta.url).pathname;
const SERVER_URL = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const ROWS = numberFromEnv('BENCH_ROWS', 1_000_000, 1);
const RUNS = numberFromEnv('BENCH_RUNS', 10, 1);
const COLD_RUNS = numberFromEnv('BENCH_COLD_RUNS', 5, 0);
const WARM_UPS = 2;
const TARGET_MS = 1000;
const VIEWPORT = { width: 1280, height: 720 };
const STUDIO = join(ROOT, 'dist', 'studio');
/** The table's first request, as the studio sends it (screens/item-table-screen.tsx). */
const FIRST_PAGE = '/items/cargos?limit=25&meta=next%2Cestimated_filter_count';

const ADMIN = { email: 'admin@bench.local', password: 'admin-bench-password' };
const OPERATOR = { email: 'op@bench.local', password: 'operator-bench-password' };
type User = typeof ADMIN;

const { start, run, stopAll } = new ChildProcesses(ROOT);
const database = `datagate_bench_studio_${process.pid}`;
let created = false;
let browser: Browser | undefined;
const workDir = mkdtempSync(join(tmpdir(), 'datagate-bench-studio-'));
const log = (message: string) => process.stderr.write(`[bench-studio] ${message}\n`);

async function cleanUp(): Promise<void> {
  await browser?.close().catch(() => {});
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

// ---------------------------------------------------------------- in the page

/**
 * Evaluated in the page (a string: the CSP governs the page's own scripts, not the DevTools protocol):
 * `ready()` is true once the table has its rows and the estimated count; `painted(start)` resolves with the
 * milliseconds from `start` to the frame after that, and the list request's own time (Resource Timing).
 */
const IN_PAGE = `
  const ready = () =>
    document.querySelector('table[aria-busy="false"] tbody tr') !== null &&
    /about [0-9,]+ rows/.test(document.querySelector('.count')?.textContent ?? '');
  const painted = (start) =>
    new Promise((resolve) => {
      const done = () => {
        const inDom = performance.now() - start;
        requestAnimationFrame(() =>
          setTimeout(() => {
            const times = (part) =>
              performance
                .getEntriesByType('resource')
                .filter((entry) => entry.name.includes(part))
                .map((entry) => entry.responseEnd - entry.startTime);
            resolve({
              inDom,
              painted: performance.now() - start,
              list: times('/items/cargos?')[0] ?? null,
              login: times('/auth/login')[0] ?? null,
              me: times('/users/me')[0] ?? null,
              document: times('/server/specs/oas')[0] ?? null,
            });
          }, 0),
        );
      };
      if (ready()) return done();
      const observer = new MutationObserver(() => {
        if (!ready()) return;
        observer.disconnect();
        done();
      });
      observer.observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true });
    });
`;

type Timing = {
  inDom: number;
  painted: number;
  list: number | null;
  login: number | null;
  me: number | null;
  document: number | null;
};

/** From the collections screen: the click on cargos' link to the table painted. */
async function openTable(page: Page): Promise<Timing> {
  const timing = (await page.evaluate(`(async () => {
    ${IN_PAGE}
    performance.clearResourceTimings();
    const link = document.querySelector('a[href="/studio/collections/cargos"]');
    const start = performance.now();
    const shown = painted(start);
    link.click();
    return shown;
  })()`)) as Timing;
  await page.getByRole('link', { name: 'Collections', exact: true }).click();
  await page.getByRole('link', { name: 'cargos', exact: true }).waitFor();
  return timing;
}

type Cold = Timing & { form: number };

/** A first visit in a fresh context: the table's address, the login form painted, the password sent, the table painted. */
async function coldVisit(base: string, user: User, watch: (page: Page) => void): Promise<Cold> {
  const context = await (browser as Browser).newContext({ viewport: VIEWPORT });
  try {
    const page = await context.newPage();
    watch(page);
    await page.goto(`${base}/studio/collections/cargos`);
    await page.getByLabel('E-mail').waitFor();
    const form = (await page.evaluate(
      `performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? performance.now()`,
    )) as number;
    await page.getByLabel('E-mail').fill(user.email);
    await page.getByLabel('Password').fill(user.password);
    const timing = (await page.evaluate(`(async () => {
      ${IN_PAGE}
      performance.clearResourceTimings();
      const start = performance.now();
      const shown = painted(start);
      document.querySelector('form').requestSubmit();
      return shown;
    })()`)) as Timing;
    return { ...timing, form };
  } finally {
    await context.close();
  }
}

// ---------------------------------------------------------------- figures

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(sorted.length * p) - 1))] ?? Number.NaN;
}

const ms = (value: number | null | undefined) =>
  value === null || value === undefined ? '–' : value.toFixed(0);
const summary = (values: Array<number | null>) => {
  const present = values.filter((value): value is number => value !== null);
  return present.length === 0 ? '– | –' : `${ms(percentile(present, 0.5))} | ${ms(Math.max(...present))}`;
};
const load = () =>
  loadavg()
    .map((value) => value.toFixed(2))
    .join(' / ');

/** Every script and stylesheet of the build, gzipped as the bundle budget test does. */
function bundleSizes(): { lines: string[]; total: number } {
  const assets = join(STUDIO, 'assets');
  const lines: string[] = [];
  let total = 0;
  for (const name of readdirSync(assets)) {
    if (!/\.(js|css)$/.test(name)) continue;
    const raw = readFileSync(join(assets, name));
    const gzipped = gzipSync(raw, { level: 9 }).length;
    total += gzipped;
    lines.push(`| ${name} | ${raw.length.toLocaleString('en')} | ${gzipped.toLocaleString('en')} |`);
  }
  return { lines, total };
}

/** What the table must never ask for on a big collection: an exact count, or an offset page. */
function costlyAsk(url: string): string | null {
  const query = new URL(url).searchParams;
  if (query.has('offset') || query.has('page')) return `an offset page: ${url}`;
  const meta = (query.get('meta') ?? '').split(',');
  if (meta.some((member) => ['total_count', 'filter_count', '*'].includes(member)))
    return `an exact count: ${url}`;
  return null;
}

// ---------------------------------------------------------------- the run

async function main(): Promise<void> {
  for (const built of [BUILT_CLI, 'dist/studio/index.html'])
    if (!existsSync(join(ROOT, built))) throw new Error(`${built} is missing: make build`);
  if (!existsSync(CHROMIUM)) throw new Error(`Chromium is missing at ${CHROMIUM}: make chromium`);
  assertLoopback(SERVER_URL, 'bench-studio');
  const loadBefore = load();
  const url = databaseUrl(SERVER_URL, database);
  await withClient(SERVER_URL, (client) => client.query(`create database ${quoteId(database)}`));
  created = true;
  const port = await freePort();
  const serverEnv = productionServerEnv({
    databaseUrl: url,
    port,
    admin: ADMIN,
    extra: { ACCESS_TOKEN_TTL: '1d', LOGIN_THROTTLE: 'false' },
  });
  const cli = (...args: string[]) =>
    run(process.execPath, [BUILT_CLI, ...args], { env: serverEnv, timeoutMs: 1_200_000 });
  await cli('migrate');
  await cli('bootstrap');
  const seeding = performance.now();
  await cli('sample', 'cargos', '--rows', String(ROWS));
  const seededIn = performance.now() - seeding;
  log(`${ROWS.toLocaleString('en')} cargos in ${(seededIn / 1000).toFixed(1)} s`);
  await createOperator(cli, OPERATOR);
  // As autovacuum would, eventually: the estimated count reads the statistics ANALYZE keeps.
  await withClient(url, (client) => client.query('vacuum analyze cargos'));

  const server = start([BUILT_CLI, 'serve'], { env: serverEnv, logFile: join(workDir, 'datagate.log') });
  const base = `http://127.0.0.1:${port}`;
  await waitFor(`${base}/server/health`, server);
  const login = async (user: User) =>
    (JSON.parse(await apiCall('POST', `${base}/auth/login`, null, user)) as { access_token: string })
      .access_token;
  const adminJwt = await login(ADMIN);
  const role = await roleIdByName(url, 'Operator');
  await apiCall('POST', `${base}/permissions`, adminJwt, {
    role,
    collection: 'cargos',
    action: 'read',
    permissions: { is_deleted: { _eq: false } },
    fields: ['id', 'date_created', 'description', 'temperature'],
  });
  const operatorJwt = await login(OPERATOR);

  // The statement behind the table's page, built by datagate's own read path, and its plan on these rows.
  const planFile = join(workDir, 'plan.json');
  await run(process.execPath, ['--import', 'tsx', 'bench/plan.ts', planFile], {
    env: serverEnv,
    input: JSON.stringify({
      cases: [
        { name: 'admin', path: FIRST_PAGE, token: adminJwt },
        { name: 'Operator', path: FIRST_PAGE, token: operatorJwt },
      ],
    }),
    timeoutMs: 120_000,
  });
  const planned = (JSON.parse(readFileSync(planFile, 'utf8')) as { cases: PlanCase[] }).cases;
  const plans = await withClient(url, async (client) => {
    const out: string[] = [];
    for (const statement of planned) {
      const { rows } = await client.query<{ 'QUERY PLAN': string }>(
        `explain (analyze, costs off, timing off, summary on) ${statement.sql}`,
        statement.parameters as unknown[],
      );
      out.push(
        `${statement.name}:\n\n\`\`\`sql\n${statement.sql}\n\`\`\`\n\n\`\`\`\n${rows.map((row) => row['QUERY PLAN']).join('\n')}\n\`\`\``,
      );
    }
    return out;
  });

  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  const costly: string[] = [];
  const watch = (page: Page) =>
    page.on('request', (sent) => {
      if (new URL(sent.url()).pathname !== '/items/cargos') return;
      const problem = costlyAsk(sent.url());
      if (problem) costly.push(problem);
    });

  const results: Array<{ who: string; warm: Timing[]; cold: Cold[] }> = [];
  for (const [who, user] of [
    ['admin', ADMIN],
    ['Operator', OPERATOR],
  ] as const) {
    const context = await browser.newContext({ viewport: VIEWPORT });
    const page = await context.newPage();
    watch(page);
    await page.goto(`${base}/studio/`);
    await page.getByLabel('E-mail').fill(user.email);
    await page.getByLabel('Password').fill(user.password);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('link', { name: 'cargos', exact: true }).waitFor();
    for (let warmUp = 0; warmUp < WARM_UPS; warmUp++) await openTable(page);
    const warm: Timing[] = [];
    for (let run = 0; run < RUNS; run++) {
      const timing = await openTable(page);
      warm.push(timing);
      log(`${who} run ${run + 1}: ${ms(timing.painted)} ms (list request ${ms(timing.list)} ms)`);
    }
    if (who === 'admin') {
      await page.getByRole('link', { name: 'cargos', exact: true }).click();
      await page.locator('table[aria-busy="false"] tbody tr').first().waitFor();
      await page.getByText(/about [0-9,]+ rows/).waitFor();
      await page.getByRole('status').filter({ hasText: /^Live/ }).waitFor();
      await page.screenshot({ path: join(workDir, 'studio-table.png') });
    }
    await context.close();
    const cold: Cold[] = [];
    for (let run = 0; run < COLD_RUNS; run++) {
      const visit = await coldVisit(base, user, watch);
      cold.push(visit);
      log(`${who} cold ${run + 1}: form ${ms(visit.form)} ms, login → table ${ms(visit.painted)} ms`);
    }
    results.push({ who, warm, cold });
  }
  if (costly.length > 0)
    throw new Error(`the table asked for what a big table cannot afford:\n${costly.join('\n')}`);

  const bundle = bundleSizes();
  const date = new Date().toISOString().slice(0, 10);
  const tag = process.env.BENCH_TAG ? `-${process.env.BENCH_TAG}` : '';
  const warmRows = results.map(
    ({ who, warm }) =>
      `| ${who} | ${summary(warm.map((t) => t.painted))} | ${summary(warm.map((t) => t.inDom))} | ${summary(warm.map((t) => t.list))} | ${Math.max(...warm.map((t) => t.painted)) < TARGET_MS ? 'yes' : '**no**'} |`,
  );
  const coldRows = results.map(
    ({ who, cold }) =>
      `| ${who} | ${summary(cold.map((t) => t.form))} | ${summary(cold.map((t) => t.painted))} | ${summary(cold.map((t) => t.login))} | ${summary(cold.map((t) => t.document))} | ${summary(cold.map((t) => t.list))} |`,
  );
  const runRows = results.flatMap(({ who, warm }) =>
    warm.map((t, n) => `| ${who} | ${n + 1} | ${ms(t.painted)} | ${ms(t.inDom)} | ${ms(t.list)} |`),
  );
  const report = `# Studio: the first screen of ${ROWS.toLocaleString('en')} cargos — ${date}${tag ? ` (${tag.slice(1)})` : ''}

\`make bench-studio\` (bench/studio-first-screen.ts): a throwaway PostgreSQL database with ${ROWS.toLocaleString('en')}
sample cargos (\`datagate sample cargos\`, ${(seededIn / 1000).toFixed(1)} s, then \`VACUUM ANALYZE\`), the built server
(\`node ${BUILT_CLI} serve\`, NODE_ENV=production) and the built studio, headless Chromium (${VIEWPORT.width}×${VIEWPORT.height}).
Box: ${cpus().length} cores, shared with other work: load average (1/5/15 min) ${loadBefore} before, ${load()} after.
Chromium, the server and PostgreSQL share those cores, and the times move with the load: read them as
an order of magnitude, not to the millisecond.

## Opening the table (logged in): the click on cargos' link to its rows and estimated count painted

${WARM_UPS} warm-ups, then ${RUNS} runs per user, timed inside the page (\`performance.now()\` from the click to the
frame after the rows and "about N rows" are in the document). "list" is the table's one request
(\`GET ${decodeURIComponent(FIRST_PAGE)}\`) from the browser's Resource Timing. Target: under ${TARGET_MS} ms.

| user | painted p50 ms | max | rows in the document p50 | max | list request p50 | max | under ${TARGET_MS} ms |
|---|---|---|---|---|---|---|---|
${warmRows.join('\n')}

## A first visit: the table's address typed in a fresh browser (no cache), then logging in

"form" is the first contentful paint (the login form: a reload asks for the password, tokens live in
memory only); "login → table" runs from sending the form to the table painted: the password check
(argon2id), \`/users/me\`, the caller's OpenAPI document and the table's page.

| user | form p50 ms | max | login → table p50 | max | POST /auth/login p50 | max | GET /server/specs/oas p50 | max | list p50 | max |
|---|---|---|---|---|---|---|---|---|---|---|
${coldRows.join('\n')}

## What the table asks of ${ROWS.toLocaleString('en')} rows

Every request the table made in these runs was checked: none asked for an exact count (\`meta=total_count\` or
\`filter_count\`) or an offset page (\`offset\`, \`page\`). Its page is a keyset page (\`meta=next\`), its
count the planner's estimate (\`estimated_filter_count\`: \`pg_class.reltuples\` without a rule or filter, the
row estimate of \`EXPLAIN\` with one), and without \`sort\` the rows come in primary key order, read from the
key's index: no sort of the table. The statement of the first page (bench/plan.ts, datagate's own read path)
and its plan on these rows (\`EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF)\`):

${plans.join('\n\n')}

## The studio's scripts and styles

| file | bytes | gzipped (level 9) |
|---|---|---|
${bundle.lines.join('\n')}
| total | | ${bundle.total.toLocaleString('en')} |

## Runs

| user | run | painted ms | rows in the document ms | list request ms |
|---|---|---|---|---|
${runRows.join('\n')}
`;
  mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
  const file = join(ROOT, `bench/results/${date}-studio-first-screen${tag}.md`);
  writeFileSync(file, report);
  if (process.env.BENCH_SCREENSHOT) {
    writeFileSync(process.env.BENCH_SCREENSHOT, readFileSync(join(workDir, 'studio-table.png')));
    log(`screenshot written to ${process.env.BENCH_SCREENSHOT}`);
  }
  process.stdout.write(report);
  log(`written to ${file}`);
}

main()
  .catch((error: Error) => {
    process.stderr.write(`${error.stack ?? error.message}\n`);
    process.exitCode = 1;
  })
  .finally(() => cleanUp());
