// The floor: bare node:http + pg, no framework, no auth. Each route runs one fixed statement — the exact
// SQL and parameters datagate sends for the same request (bench/plan.ts builds them with datagate's own
// code) — and writes the JSON text PostgreSQL built, as datagate does.
// Usage: node bench/floor-server.mjs <plan.json> [prepared]   env: DATABASE_URL, PORT, POOL_MAX (default 10,
// as pg's default pool, which datagate uses: MikroORM passes no pool size).
// `prepared`: each route's statement runs as a named prepared statement (pg's `{ name, text, values }`):
// parsed and planned once per pooled connection, then only bound and executed.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import pg from 'pg';

const plan = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const prepared = process.argv[3] === 'prepared';
const routes = new Map(
  plan.cases.map((c) => [
    `/${c.name}`,
    { ...(prepared ? { name: `floor_${c.name}` } : {}), text: c.sql, values: c.parameters },
  ]),
);
const pool = new pg.Pool({
  connectionString: process.env.DATABASE_URL,
  max: Number(process.env.POOL_MAX ?? 10),
  application_name: prepared ? 'datagate-floor-prepared' : 'datagate-floor',
});
pool.on('error', () => {}); // an idle client dropped by the server: the pool replaces it

const server = createServer((req, res) => {
  const route = routes.get(req.url);
  if (!route) {
    res.writeHead(404).end();
    return;
  }
  // A copy: pg writes its callback into the config object it is given.
  pool.query({ ...route }).then(
    ({ rows }) => {
      const row = rows[0];
      // A list's statement answers `items`, a single read's `item` (both with their size in `bytes`).
      const body = row === undefined ? undefined : (row.items ?? row.item);
      if (body === undefined) {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' }).end(body);
    },
    (error) => {
      res.writeHead(500, { 'content-type': 'text/plain' }).end(String(error.message));
    },
  );
});

server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  console.log(`floor${prepared ? ' (prepared)' : ''} listening on ${server.address().port}`);
});

const stop = () => server.close(() => pool.end().then(() => process.exit(0)));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
