import type pg from 'pg';

/**
 * Makes `pool` end, rather than hand out, a connection that finishes opening after `pool.end()` was
 * called; whoever asked for it gets an error instead.
 *
 * Why: Kysely's PostgresDriver forgets its pool as it is destroyed, and a connection it receives after that
 * makes it throw before it can release the connection; `pg.Pool.end()` waits for every connection handed
 * out, so it never resolved. A statement asking for a new connection just as the store closed (the schema
 * re-read the change feed starts when it begins listening) kept one-shot commands alive after their answer.
 */
export function refuseConnectionsAfterEnd(pool: pg.Pool): void {
  const previous = pool.options.onConnect;
  pool.options.onConnect = async (client) => {
    if (pool.ending) throw new Error('the connection pool is closing');
    await previous?.(client);
  };
}
