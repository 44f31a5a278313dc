import pg from 'pg';
import * as assert from 'uvu/assert';
import { type DatabaseWorkKind, runAsDatabaseWork } from '../../../src/adapters/database-work.ts';
import { statementTimeoutPerWork } from '../../../src/adapters/persistence/statement-timeout-per-work.ts';
import { postgresSkip, testDatabaseUrl } from '../../support/postgres-server.ts';
import { skippableSuite } from '../../support/skippable-suite.ts';

type Context = { pool: pg.Pool; sets: string[] };

/**
 * Every connection the pool hands out, to Kysely or to the item store's direct reads, carries the statement
 * timeout of the work that asked for it, and the setting is sent only when the connection's differs.
 */
const test = skippableSuite<Context>('The statement timeout per kind of work, on the pool', postgresSkip);

test.before.each((context) => {
  // One connection, so every checkout finds the setting the one before left on it.
  context.pool = new pg.Pool({ connectionString: testDatabaseUrl(), max: 1, statement_timeout: 1000 });
  context.sets = [];
  context.pool.on('connect', (client) => {
    type Query = (text: unknown, ...rest: unknown[]) => unknown;
    const query = client.query.bind(client) as Query;
    (client as unknown as { query: Query }).query = (text, ...rest) => {
      if (typeof text === 'string' && text.startsWith('set ')) context.sets.push(text);
      return query(text, ...rest);
    };
  });
  statementTimeoutPerWork(context.pool, { read: 200, write: 3000, admin: 4000 }, 1000);
});
test.after.each(({ pool }) => pool.end());

const shown = async (pool: pg.Pool): Promise<string> => {
  const client = await pool.connect();
  try {
    return (await client.query<{ statement_timeout: string }>('show statement_timeout')).rows[0]!
      .statement_timeout;
  } finally {
    client.release();
  }
};

const as = (kind: DatabaseWorkKind, pool: pg.Pool) => runAsDatabaseWork(kind, () => shown(pool));

test("each kind's own bound; outside a request, the pool's", async ({ pool, sets }) => {
  assert.is(await shown(pool), '1s', 'a new connection starts at the bound outside requests');
  assert.equal(sets, [], 'nothing to set');
  assert.is(await as('read', pool), '200ms');
  assert.is(await as('read', pool), '200ms');
  assert.equal(sets, ['set statement_timeout = 200'], 'set once while the kind stays the same');
  assert.is(await as('write', pool), '3s');
  assert.is(await as('admin', pool), '4s');
  assert.is(await shown(pool), '1s', 'back to the bound outside requests');
  assert.is(sets.length, 4);
});

test("pg's own pool.query (a checkout by callback) is bounded alike", async ({ pool }) => {
  const asked = await runAsDatabaseWork('admin', () =>
    pool.query<{ statement_timeout: string }>('show statement_timeout'),
  );
  assert.is(asked.rows[0]!.statement_timeout, '4s');
  assert.is(await shown(pool), '1s');
});

test('a statement past its bound is cut by PostgreSQL', async ({ pool }) => {
  const cut = await runAsDatabaseWork('read', () => pool.query('select pg_sleep(0.5)')).catch(
    (error: unknown) => error,
  );
  assert.is((cut as { code?: string }).code, '57014', String(cut));
  const waited = await runAsDatabaseWork('write', () => pool.query('select pg_sleep(0.5)'));
  assert.is(waited.rowCount, 1, 'the same sleep is within a write');
});

test.run();
