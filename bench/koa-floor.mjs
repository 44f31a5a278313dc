// A "Koa floor": Koa + @koa/router + pg's pool and nothing else, to tell what the framework costs from what
// datagate adds on top of it (bench/NOTES.md §7). The routes of bench/floor-server.mjs (one per case of a plan
// built by bench/plan.ts, `GET /<case>`, each statement prepared), behind one router parameter, and
// `GET /hello`, a constant JSON answer.
// Usage: DATABASE_URL=… PORT=… [SPIN_US=…] node bench/koa-floor.mjs <plan.json>
// SPIN_US: that many microseconds of busy JavaScript before each statement, standing for work a server adds to
// a request, to measure what one microsecond of it costs on the box (bench/NOTES.md §7.8).
// Measure it (or datagate) with: node bench/cpu-of-url.mjs <pid> <url> [requests], or as `@koa-floor` in
// bench/cpu-per-request.ts.
import { readFileSync } from 'node:fs';
import Router from '@koa/router';
import Koa from 'koa';
import pg from 'pg';

const plan = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const statements = new Map(
  plan.cases.map((c) => [c.name, { name: `koa_${c.name}`, text: c.sql, values: c.parameters }]),
);
const pool = new pg.Pool({
  connectionString: process.env.DATABASE_URL,
  max: Number(process.env.POOL_MAX ?? 10),
});
pool.on('error', () => {});
const SPIN_US = Number(process.env.SPIN_US ?? 0);
const spin = () => {
  const until = performance.now() + SPIN_US / 1000;
  while (performance.now() < until);
};
const app = new Koa();
const router = new Router();
router.get('/hello', (ctx) => {
  ctx.type = 'application/json';
  ctx.body = '{"status":"ok"}';
});
router.get('/:name', async (ctx) => {
  const statement = statements.get(ctx.params.name);
  if (!statement) return;
  if (SPIN_US > 0) spin();
  const { rows } = await pool.query({ ...statement });
  const body = rows[0]?.items ?? rows[0]?.item;
  if (body === undefined) return;
  ctx.type = 'application/json';
  ctx.body = body;
});
app.use(router.routes());
const server = app.listen(Number(process.env.PORT), '127.0.0.1');
const stop = () => server.close(() => pool.end().then(() => process.exit(0)));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
