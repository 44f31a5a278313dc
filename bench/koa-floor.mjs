// A "Koa floor": Koa + @koa/router + pg's pool and nothing else, to tell what the framework costs from what
// datagate adds on top of it (bench/NOTES.md §7). Two routes: `GET /hello` answers constant JSON, and
// `GET /items/cargos/:id` runs SQL (one `$1`, the id) as a prepared statement and answers its `item` column.
// Usage: DATABASE_URL=… PORT=… SQL='select … where id = $1' node bench/koa-floor.mjs
// Measure it (or datagate) with: node bench/cpu-of-url.mjs <pid> <url> [requests]
import Router from '@koa/router';
import Koa from 'koa';
import pg from 'pg';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
const app = new Koa();
const router = new Router();
router.get('/hello', (ctx) => {
  ctx.type = 'application/json';
  ctx.body = '{"status":"ok"}';
});
router.get('/items/cargos/:id', async (ctx) => {
  const result = await pool.query({ name: 'item', text: process.env.SQL, values: [ctx.params.id] });
  ctx.type = 'application/json';
  ctx.body = `{"data":${result.rows[0]?.item ?? 'null'}}`;
});
app.use(router.routes());
app.listen(Number(process.env.PORT), '127.0.0.1');
