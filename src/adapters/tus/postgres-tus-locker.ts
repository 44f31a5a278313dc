import { ERRORS, type Lock, type Locker, MemoryLocker, type RequestRelease } from '@tus/server';
import pg from 'pg';
import type { AppConfig } from '../config/config-schema.ts';
import { unavailableError } from '../persistence/database-unreachable.ts';

/**
 * The first key of the advisory locks held on resumable uploads (the second is the upload id's hash); any
 * stable number, taken by nothing else.
 */
const UPLOAD_LOCK = 1_953_853_300;

/** How often a waiting request tries the advisory lock again. */
const RETRY_MS = 100;

/**
 * Connections of the locks' own pool: each held lock keeps one for as long as its PATCH lasts, so at most
 * this many uploads receive bytes at once per instance; the others wait for a connection, then for the lock.
 */
const POOL_SIZE = 16;

/** pg's client, with what it does but its types do not say: holding the process open for its socket. */
type RefCounted = pg.PoolClient & { ref(): void };

export type LockerDatabase = Pick<AppConfig['database'], 'connectTimeout'> & { url: string };

/**
 * Locks on resumable uploads that hold across instances (docs/decisions/0041): a session advisory lock on
 * the upload id's hash, on a connection of the locks' own pool held until unlock, so two PATCHes of one upload
 * never interleave wherever they land. Within one instance @tus/server's MemoryLocker is asked first, so a
 * request that finds the upload held here asks the holder to stop (a resumed client's stale request) rather
 * than waiting for it; a holder on another instance is waited for, polling, until it ends. Either wait gives
 * up after `acquireTimeoutMs` with @tus/server's ERR_LOCK_TIMEOUT (which the uploads answer 423); a pool
 * with no free connection, or a database that cannot be reached, is the 503 the persistence would give.
 */
export class PostgresTusLocker implements Locker {
  private readonly local: MemoryLocker;
  private readonly pool: pg.Pool;
  /** Every connection the pool opened that has not closed yet, so that `close` can wait for the last. */
  private readonly open = new Set<pg.PoolClient>();
  private lastClosed: (() => void) | undefined;

  constructor(
    database: LockerDatabase,
    private readonly acquireTimeoutMs: number,
  ) {
    this.local = new MemoryLocker({ acquireLockTimeout: acquireTimeoutMs });
    this.pool = new pg.Pool({
      connectionString: database.url,
      max: POOL_SIZE,
      connectionTimeoutMillis: database.connectTimeout,
      application_name: 'datagate upload locks',
      allowExitOnIdle: true,
    });
    // A dropped idle connection is replaced at the next lock; unhandled, 'error' would end the process.
    this.pool.on('error', () => {});
    this.pool.on('connect', (client) => {
      this.open.add(client);
      client.once('end', () => {
        this.open.delete(client);
        if (this.open.size === 0) this.lastClosed?.();
      });
    });
  }

  newLock(id: string): Lock {
    return new PostgresTusLock(id, this.local.newLock(id), this.pool, this.acquireTimeoutMs);
  }

  /**
   * Ends the pool: idle connections at once, a lock still held when its request lets it go (so call this
   * once the requests have ended). Resolves when every connection has closed, its session's locks with it.
   */
  async close(): Promise<void> {
    const closed = new Promise<void>((resolve) => {
      this.lastClosed = resolve;
    });
    // `allowExitOnIdle` lets go of idle connections' sockets; their goodbyes must keep the process alive,
    // or it could end before they do (and this with it, never resolved).
    for (const client of this.open) (client as RefCounted).ref();
    await this.pool.end();
    if (this.open.size > 0) await closed;
  }
}

class PostgresTusLock implements Lock {
  private client: pg.PoolClient | undefined;

  constructor(
    private readonly id: string,
    private readonly local: Lock,
    private readonly pool: pg.Pool,
    private readonly acquireTimeoutMs: number,
  ) {}

  async lock(signal: AbortSignal, requestRelease: RequestRelease): Promise<void> {
    await this.local.lock(signal, requestRelease);
    try {
      this.client = await this.advisoryLock(signal);
    } catch (error) {
      await this.local.unlock();
      throw unavailableError(error) ?? error;
    }
  }

  async unlock(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    try {
      if (client) {
        await client.query('select pg_advisory_unlock($1::int4, hashtext($2))', [UPLOAD_LOCK, this.id]);
        client.release();
      }
    } catch (error) {
      // A connection that failed to unlock is closed, which releases its session's locks.
      client?.release(error instanceof Error ? error : true);
    } finally {
      await this.local.unlock();
    }
  }

  private async advisoryLock(signal: AbortSignal): Promise<pg.PoolClient> {
    const client = await this.pool.connect();
    const deadline = Date.now() + this.acquireTimeoutMs;
    try {
      for (;;) {
        const result = await client.query<{ locked: boolean }>(
          'select pg_try_advisory_lock($1::int4, hashtext($2)) as locked',
          [UPLOAD_LOCK, this.id],
        );
        if (result.rows[0]?.locked) return client;
        if (signal.aborted || Date.now() > deadline) throw ERRORS.ERR_LOCK_TIMEOUT;
        await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
      }
    } catch (error) {
      // A failed statement may have broken the connection: it is closed rather than handed out again.
      client.release(error instanceof Error ? error : undefined);
      throw error;
    }
  }
}
