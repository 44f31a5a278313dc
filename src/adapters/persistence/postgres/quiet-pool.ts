import pg from 'pg';
import { refuseConnectionsAfterEnd } from '../refuse-connections-after-end.ts';

/**
 * A pool of connections of their own (a replica's, a probe's, the change log reader's): a connection the
 * server drops is discarded; unhandled, the pool's 'error' event would end the process.
 */
export function quietPool(config: pg.PoolConfig): pg.Pool {
  const pool = new pg.Pool(config);
  pool.on('error', () => {});
  refuseConnectionsAfterEnd(pool);
  return pool;
}
