import { CompiledQuery, type Kysely } from 'kysely';
import type pg from 'pg';
import type { DatabaseWork, DatabaseWorkKind } from '../../domain/database-work.ts';

export type StatementTimeouts = Readonly<Record<DatabaseWorkKind, number>>;

type Checkout = (
  error: Error | undefined,
  client: pg.PoolClient | undefined,
  done: (error?: Error) => void,
) => void;

/** A pool's checkout by kind of work, where statementTimeoutPerWork set one up. */
type PerWork = {
  readonly connect: (kind: DatabaseWorkKind | undefined) => Promise<pg.PoolClient>;
  readonly timeouts: StatementTimeouts;
};

const perWork = new WeakMap<pg.Pool, PerWork>();

/**
 * Makes every connection `pool` hands out carry the statement timeout of the work asking for it: before the
 * connection is handed over, its `statement_timeout` is set to the bound of the request's kind
 * (`database.statementTimeout`, asked for with `connectFor`), or back to `outsideMs` for any other checkout
 * (`pool.connect()`: Kysely's and MikroORM's statements, work outside a request). A session setting rather than
 * `SET LOCAL` in a transaction, so a read stays one statement; it is sent only when the connection's current
 * setting differs, which is rare once the pool has warmed up (each connection mostly keeps serving the same
 * kind). A transaction that runs a request's writes sets its kind's bound with `setLocalTimeout` instead.
 *
 * Keyed by pg's own client, so the item reads that go to pg without Kysely and every Kysely statement share
 * what each connection was last set to. Taken before any `begin`, so no rollback can undo it. `outsideMs`
 * must be the pool's own `statement_timeout` option, which a new connection starts with.
 */
export function statementTimeoutPerWork(pool: pg.Pool, timeouts: StatementTimeouts, outsideMs: number): void {
  const applied = new WeakMap<pg.PoolClient, number>();
  const checkOut = pool.connect.bind(pool) as () => Promise<pg.PoolClient>;
  const connect = async (kind: DatabaseWorkKind | undefined): Promise<pg.PoolClient> => {
    const wanted = kind === undefined ? outsideMs : timeouts[kind];
    const client = await checkOut();
    if ((applied.get(client) ?? outsideMs) === wanted) return client;
    try {
      await client.query(`set statement_timeout = ${Math.round(wanted)}`);
      applied.set(client, wanted);
    } catch {
      // Handed over all the same: the statement that follows fails alike on a broken connection, and its
      // owner releases it as after any failure. The setting is now unknown (NaN equals nothing), so the
      // next checkout sets it again.
      applied.set(client, Number.NaN);
    }
    return client;
  };
  perWork.set(pool, { connect, timeouts });
  // pg's own `pool.query()` asks with a callback; Kysely with a promise.
  pool.connect = ((callback?: Checkout) => {
    if (!callback) return connect(undefined);
    connect(undefined).then(
      (client) => callback(undefined, client, (error) => client.release(error)),
      (error: Error) => callback(error, undefined, () => {}),
    );
    return undefined;
  }) as typeof pool.connect;
}

/** A connection of `pool` bounded by `kind`'s statement timeout (a pool without per-work timeouts: as it is). */
export function connectFor(pool: pg.Pool, kind: DatabaseWorkKind | undefined): Promise<pg.PoolClient> {
  return perWork.get(pool)?.connect(kind) ?? pool.connect();
}

/**
 * The statement that bounds the rest of a transaction by `kind`'s statement timeout, or undefined where `pool`
 * has no per-work timeouts (none configured, or no pool: PGlite). `SET LOCAL` ends with the transaction.
 */
export function setLocalTimeout(pool: pg.Pool | undefined, kind: DatabaseWorkKind): string | undefined {
  const timeouts = pool && perWork.get(pool)?.timeouts;
  return timeouts && `set local statement_timeout = ${Math.round(timeouts[kind])}`;
}

/**
 * Runs `read` bounded by `work`'s statement timeout: in a transaction opened by `SET LOCAL`, where `pool` has
 * per-work timeouts and the read is a request's; else on `db` as it is. For Kysely's statements, whose
 * connection is checked out where no kind can be asked for: the three statements more are paid by lists of
 * the system tables, not by the item reads (`connectFor`).
 */
export function boundedByWork<DB, T>(
  db: Kysely<DB>,
  pool: pg.Pool | undefined,
  work: DatabaseWork | undefined,
  read: (db: Kysely<DB>) => Promise<T>,
): Promise<T> {
  const bound = work && setLocalTimeout(pool, work.kind);
  if (!bound) return read(db);
  return db.transaction().execute(async (trx) => {
    await trx.executeQuery(CompiledQuery.raw(bound));
    return read(trx);
  });
}
