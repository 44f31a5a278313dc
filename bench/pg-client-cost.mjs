// The CPU a bare pg client spends per statement, by the way it takes its connection, with and without an
// AsyncLocalStorage in use: what datagate's read path pays below its own code (bench/NOTES.md §7).
// Usage: DATABASE_URL=… node bench/pg-client-cost.mjs <plan.json> <case> <way> [concurrency=2] [als]
//   <plan.json>: written by bench/plan.ts; <case>: one of its case names;
//   <way>: pool-query (pg's pool.query, as the floor), checkout (connect, await the query, release after, as
//   Kysely and datagate do), checkout-callback (connect, release in the query's callback), prepared
//   (checkout with datagate's PreparedStatementQuery; needs `make build`);
//   als: every statement runs inside AsyncLocalStorage.run, which turns on Node 20's promise hooks.
import { AsyncLocalStorage } from 'node:async_hooks';
import { readFileSync } from 'node:fs';
import pg from 'pg';

const [planFile, caseName, way, concurrencyArg, alsArg] = process.argv.slice(2);
const plan = JSON.parse(readFileSync(planFile, 'utf8'));
const statement = plan.cases.find((c) => c.name === caseName);
if (!statement) throw new Error(`no case ${caseName} in ${planFile}`);
const concurrency = Number(concurrencyArg ?? 2);
const als = alsArg === 'als' ? new AsyncLocalStorage() : null;
const { PreparedStatementQuery } =
  way === 'prepared'
    ? await import('../dist/src/adapters/persistence/postgres/prepared-statement-query.js')
    : { PreparedStatementQuery: null };
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
const config = () => ({ name: 'cost', text: statement.sql, values: statement.parameters });

const ways = {
  'pool-query': async () => (await pool.query(config())).rows,
  checkout: async () => {
    const client = await pool.connect();
    try {
      return (await client.query(config())).rows;
    } finally {
      client.release();
    }
  },
  'checkout-callback': async () => {
    const client = await pool.connect();
    return new Promise((resolve, reject) =>
      client.query(config(), (error, result) => {
        client.release(error);
        return error ? reject(error) : resolve(result.rows);
      }),
    );
  },
  prepared: async () => {
    const client = await pool.connect();
    try {
      return (await client.query(new PreparedStatementQuery('cost', statement.sql, statement.parameters, 64)))
        .rows;
    } finally {
      client.release();
    }
  },
};
const one = ways[way];
if (!one) throw new Error(`way: one of ${Object.keys(ways).join(', ')}`);

const run = async (total) => {
  let started = 0;
  const worker = async () => {
    while (started++ < total) await (als ? als.run({ request: started }, one) : one());
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
};

await run(500);
const before = process.cpuUsage();
const t0 = performance.now();
const total = 4000;
await run(total);
const used = process.cpuUsage(before);
const ms = (micros) => (micros / 1000 / total).toFixed(3);
console.log(
  `${caseName} ${way}${als ? ' +als' : ''} ×${concurrency}: ${ms(used.user + used.system)} ms CPU per statement ` +
    `(user ${ms(used.user)}, system ${ms(used.system)}), ${Math.round((total / (performance.now() - t0)) * 1000)}/s`,
);
await pool.end();
