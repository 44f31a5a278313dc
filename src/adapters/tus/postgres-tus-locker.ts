import { ERRORS, type Lock, type Locker, MemoryLocker, type RequestRelease } from '@tus/server';
import pg from 'pg';
import type { AppConfig } from '../config/config-schema.ts';

/**
 * The first key of the advisory locks held on resumable uploads (the second is the upload id's hash); any
 * stable number, taken by nothing else.
 */
const UPLOAD_LOCK = 1_953_853_300;

/** How long a request waits for an upload another request holds before it gives up (500, as @tus/server's own). */
const ACQUIRE_TIMEOUT_MS = 30_000;

/** How often a waiting request tries the advisory lock again. */
const RETRY_MS = 100;

/**
 * Connections of the locks' own pool: each held lock keeps one for as long as its PATCH lasts, so at most
 * this many uploads receive bytes at once per instance; the others wait for a connection, then for the lock.
 */
const POOL_SIZE = 16;

export type LockerDatabase = Pick<AppConfig['database'], 'connectTimeout'> & { url: string };

/**
 * Locks on resumable uploads that hold across instances (docs/decisions/0041): a session advisory lock on
 * the upload id's hash, on a connection of the locks' own pool held until unlock, so two PATCHes of one upload
 * never interleave wherever they land. Within one instance @tus/server's MemoryLocker is asked first, so a
 * request that finds the upload held here asks the holder to stop (a resumed client's stale request) rather
 * than waiting for it; a holder on another instance is waited for, polling, until it ends.
 */
export class PostgresTusLocker implements Locker {
  private readonly local = new MemoryLocker({ acquireLockTimeout: ACQUIRE_TIMEOUT_MS });
  private readonly pool: pg.Pool;

  constructor(database: LockerDatabase) {
    this.pool = new pg.Pool({
      connectionString: database.url,
      max: POOL_SIZE,
      connectionTimeoutMillis: database.connectTimeout,
      application_name: 'datagate upload locks',
      allowExitOnIdle: true,
    });
    // A dropped idle connection is replaced at the next lock; unhandled, 'error' would end the process.
    this.pool.on('error', () => {});
  }

  newLock(id: string): Lock {
    return new PostgresTusLock(id, this.local.newLock(id), this.pool);
  }

  close(): Promise<void> {
    return this.pool.end();
  }
}

class PostgresTusLock implements Lock {
  private client: pg.PoolClient | undefined;

  constructor(
    private readonly id: string,
    private readonly local: Lock,
    private readonly pool: pg.Pool,
  ) {}

  async lock(signal: AbortSignal, requestRelease: RequestRelease): Promise<void> {
    await this.local.lock(signal, requestRelease);
    try {
      this.client = await this.advisoryLock(signal);
    } catch (error) {
      await this.local.unlock();
      throw error;
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
    const deadline = Date.now() + ACQUIRE_TIMEOUT_MS;
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
      client.release();
      throw error;
    }
  }
}
