import { CompiledQuery } from 'kysely';
import { currentDatabaseWork, type DatabaseWorkKind } from '../../database-work.ts';

export type StatementTimeouts = Readonly<Record<DatabaseWorkKind, number>>;

type Connection = { executeQuery(query: CompiledQuery): Promise<unknown> };

/**
 * The pool's `onReserveConnection`: before a request's statement runs on a connection, the connection's
 * `statement_timeout` is set to the bound of the request's kind (`database.statementTimeout`), or back to
 * `outsideMs` for work outside a request. A session setting rather than `SET LOCAL` in a transaction, so a
 * read stays one statement; it is sent only when the connection's current setting differs, which is rare
 * once the pool has warmed up (each connection mostly keeps serving the same kind).
 *
 * Taken before any `begin` (Kysely reserves, then begins), so no rollback can undo it. Each pooled
 * connection is one Kysely object for its whole life, which keys what it was last set to.
 */
export function statementTimeoutPerWork(
  timeouts: StatementTimeouts,
  outsideMs: number,
): (connection: unknown) => Promise<void> {
  const applied = new WeakMap<Connection, number>();
  return async (reserved) => {
    const connection = reserved as Connection;
    const kind = currentDatabaseWork();
    const wanted = kind === undefined ? outsideMs : timeouts[kind];
    // A new connection starts at `outsideMs`: the pool's `statement_timeout` option.
    if ((applied.get(connection) ?? outsideMs) === wanted) return;
    try {
      await connection.executeQuery(CompiledQuery.raw(`set statement_timeout = ${Math.round(wanted)}`));
      applied.set(connection, wanted);
    } catch {
      // Kysely does not release a connection whose reservation throws: leave the failure (a broken
      // connection) to the statement that follows, which fails alike and releases it. The setting is
      // now unknown (NaN equals nothing), so the next reservation sets it again.
      applied.set(connection, Number.NaN);
    }
  };
}
