import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import * as assert from 'uvu/assert';
import {
  boundedByWork,
  connectFor,
  setLocalTimeout,
  statementTimeoutPerWork,
} from '../../../src/adapters/persistence/statement-timeout-per-work.ts';
import type { DatabaseWorkKind } from '../../../src/domain/database-work.ts';
import { postgresSkip, testDatabaseUrl } from '../../support/postgres-server.ts';
import { skippableSuite } from '../../support/skippable-suite.ts';

type Context = { pool: pg.Pool; sets: string[] };

/**
 * Every connection the pool hands out carries the statement timeout of the work that asked for it (the item
 * store's reads, `connectFor`), or the pool's own for any other checkout (Kysely's, `pool.connect()`), and the
 * setting is sent only when the connection's differs. Kysely's statements of a request are bounded in a
 * transaction (`boundedByWork`, `setLocalTimeout`).
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

const shown = async (pool: pg.Pool, kind?: DatabaseWorkKind): Promise<string> => {
  const client = kind === undefined ? await pool.connect() : await connectFor(pool, kind);
  try {
    return (await client.query<{ statement_timeout: string }>('show statement_timeout')).rows[0]!
      .statement_timeout;
  } finally {
    client.release();
  }
};

const as = (kind: DatabaseWorkKind, pool: pg.Pool) => shown(pool, kind);
const work = (kind: DatabaseWorkKind) => ({ kind, caller: 'user u', readsOnly: kind === 'read' });

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

test("pg's own pool.query (a checkout by callback) has the pool's bound", async ({ pool }) => {
  assert.is(await as('admin', pool), '4s');
  const asked = await pool.query<{ statement_timeout: string }>('show statement_timeout');
  assert.is(asked.rows[0]!.statement_timeout, '1s');
});

test('a statement past its bound is cut by PostgreSQL', async ({ pool }) => {
  const sleep = async (kind: DatabaseWorkKind) => {
    const client = await connectFor(pool, kind);
    try {
      return await client.query('select pg_sleep(0.5)');
    } finally {
      client.release();
    }
  };
  const cut = await sleep('read').catch((error: unknown) => error);
  assert.is((cut as { code?: string }).code, '57014', String(cut));
  const waited = await sleep('write');
  assert.is(waited.rowCount, 1, 'the same sleep is within a write');
});

test("Kysely's statements of a request: the kind's bound for the transaction only", async ({ pool }) => {
  assert.is(setLocalTimeout(pool, 'read'), 'set local statement_timeout = 200');
  assert.is(setLocalTimeout(undefined, 'read'), undefined, 'no pool (PGlite): no bound');
  const db = new Kysely<unknown>({ dialect: new PostgresDialect({ pool }) });
  const show = (on: Kysely<unknown>) =>
    sql<{ statement_timeout: string }>`show statement_timeout`
      .execute(on)
      .then((r) => r.rows[0]!.statement_timeout);
  assert.is(await boundedByWork(db, pool, work('read'), show), '200ms');
  assert.is(await boundedByWork(db, pool, undefined, show), '1s', 'not a request: the pool bound');
  assert.is(await show(db), '1s', 'SET LOCAL ended with its transaction');
  const cut = await boundedByWork(db, pool, work('read'), (on) =>
    sql`select pg_sleep(0.5)`.execute(on),
  ).catch((error: unknown) => error);
  assert.is((cut as { code?: string }).code, '57014', String(cut));
});

test.run();
