import type pg from 'pg';
import { currentDatabaseWork, type DatabaseWorkKind } from '../database-work.ts';

export type StatementTimeouts = Readonly<Record<DatabaseWorkKind, number>>;

type Checkout = (
  error: Error | undefined,
  client: pg.PoolClient | undefined,
  done: (error?: Error) => void,
) => void;

/**
 * Makes every connection `pool` hands out carry the statement timeout of the work asking for it: before the
 * connection is handed over, its `statement_timeout` is set to the bound of the request's kind
 * (`database.statementTimeout`), or back to `outsideMs` for work outside a request. A session setting
 * rather than `SET LOCAL` in a transaction, so a read stays one statement; it is sent only when the
 * connection's current setting differs, which is rare once the pool has warmed up (each connection mostly
 * keeps serving the same kind).
 *
 * On the pool's checkout rather than in Kysely's `onReserveConnection`, so the item reads that go to pg
 * without Kysely (PostgresItemStore's prepared reads) and every Kysely statement share what each
 * connection was last set to, keyed by pg's own client. Taken before any `begin`, so no rollback can undo
 * it. `outsideMs` must be the pool's own `statement_timeout` option, which a new connection starts with.
 */
export function statementTimeoutPerWork(pool: pg.Pool, timeouts: StatementTimeouts, outsideMs: number): void {
  const applied = new WeakMap<pg.PoolClient, number>();
  const checkOut = pool.connect.bind(pool) as () => Promise<pg.PoolClient>;
  const connect = async (): Promise<pg.PoolClient> => {
    const kind = currentDatabaseWork();
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
  // pg's own `pool.query()` asks with a callback; Kysely and the item store with a promise.
  pool.connect = ((callback?: Checkout) => {
    if (!callback) return connect();
    connect().then(
      (client) => callback(undefined, client, (error) => client.release(error)),
      (error: Error) => callback(error, undefined, () => {}),
    );
    return undefined;
  }) as typeof pool.connect;
}
