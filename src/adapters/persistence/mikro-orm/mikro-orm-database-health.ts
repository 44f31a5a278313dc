import { performance } from 'node:perf_hooks';
import type { MikroORM } from '@mikro-orm/postgresql';
import { CompiledQuery } from 'kysely';
import pg from 'pg';
import type { DatabaseHealth, HealthCheckResult } from '../../../application/ports/database-health.ts';
import { systemTablesMissing, TABLES_MISSING_REASON, unreachableReason } from '../database-unreachable.ts';
import { SYSTEM_TABLE_NAMES } from './system-tables.ts';

const DEFAULT_TIMEOUT_MS = 2000;

/** On a PostgreSQL server, where the health check runs, apart from the pool that serves requests. */
export type ServerHealthOptions = {
  url: string;
  connectMs: number;
  /** The pool serving requests, once it exists: how busy it is. */
  servingPool: () => pg.Pool | undefined;
};

/**
 * Answers the health endpoint with a statement that reads no row of the server's own tables (probeStatement). Never throws and never waits longer than `timeoutMs`: a
 * health check that hangs with the database is useless to the orchestrator asking. Concurrent checks share
 * one probe, so a flood of them costs the database one query at a time.
 *
 * On a PostgreSQL server the probe has a connection of its own (a pool of one, kept open), so requests that
 * hold every connection of the serving pool cannot make it wait: the database answers, and a serving pool
 * with requests waiting for a connection reports `busy` — this instance is saturated, the database is not
 * lost, and restarting the instance would not help. Embedded PGlite has a single connection for everything:
 * the probe waits its turn behind the requests, and a check that gets no turn within `timeoutMs` is an error.
 */
export class MikroOrmDatabaseHealth implements DatabaseHealth {
  private readonly probe: () => Promise<unknown>;
  private readonly ownPool: pg.Pool | undefined;
  private inFlight: Promise<HealthCheckResult> | undefined;

  constructor(
    orm: MikroORM,
    private readonly timeoutMs = DEFAULT_TIMEOUT_MS,
    private readonly server?: ServerHealthOptions,
    schema?: string,
  ) {
    const statement = probeStatement(schema);
    if (server) {
      const pool = healthPool(server, timeoutMs);
      this.ownPool = pool;
      this.probe = () => pool.query(statement.sql);
    } else {
      this.probe = () => orm.em.fork().getKysely().executeQuery(statement);
    }
  }

  check(): Promise<HealthCheckResult> {
    this.inFlight ??= this.measure().finally(() => {
      this.inFlight = undefined;
    });
    return this.inFlight;
  }

  /** Ends the health check's own connection; the serving pool is closed with the ORM. */
  async close(): Promise<void> {
    await this.ownPool?.end();
  }

  private async measure(): Promise<HealthCheckResult> {
    const started = performance.now();
    const elapsed = () => Math.round((performance.now() - started) * 100) / 100;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), this.timeoutMs);
    });
    try {
      const query = this.probe().then(() => 'ok' as const);
      const outcome = await Promise.race([query, timedOut]);
      if (outcome === 'timeout') {
        // The query may still settle later; nobody is listening any more.
        query.catch(() => {});
        return {
          status: 'error',
          detail: `no answer within ${this.timeoutMs} ms`,
          responseTimeMs: elapsed(),
        };
      }
      const busy = this.busyDetail();
      return busy
        ? { status: 'busy', detail: busy, responseTimeMs: elapsed() }
        : { status: 'ok', responseTimeMs: elapsed() };
    } catch (error) {
      return { status: 'error', detail: describe(error), responseTimeMs: elapsed() };
    } finally {
      clearTimeout(timer);
    }
  }

  /** Saturated: every connection of the serving pool is out and requests queue for one. */
  private busyDetail(): string | undefined {
    const pool = this.server?.servingPool();
    if (!pool || pool.waitingCount === 0) return undefined;
    return `all ${pool.totalCount} database connections in use, ${pool.waitingCount} requests waiting`;
  }
}

/**
 * No row from every one of the server's own tables: as cheap as `select 1` (the executor reads nothing),
 * but the statement fails with 42P01 when the database answers without them (emptied or re-created since
 * the migrations ran), which a `select 1` would call healthy while every login fails.
 */
function probeStatement(schema: string | undefined): CompiledQuery {
  const qualified = (table: string) => (schema ? `"${schema.replaceAll('"', '""')}".${table}` : table);
  return CompiledQuery.raw(`select 1 from ${SYSTEM_TABLE_NAMES.map(qualified).join(', ')} limit 0`);
}

/**
 * One connection, opened on first use and kept (no idle timeout), with the check's own bounds: the server
 * cancels a probe stuck past `timeoutMs`, so a late answer never holds the next one up for long.
 */
function healthPool(server: ServerHealthOptions, timeoutMs: number): pg.Pool {
  const pool = new pg.Pool({
    connectionString: server.url,
    application_name: 'datagate health',
    max: 1,
    idleTimeoutMillis: 0,
    connectionTimeoutMillis: server.connectMs,
    statement_timeout: timeoutMs,
    query_timeout: timeoutMs + server.connectMs,
    keepAlive: true,
  });
  // A connection the server drops is discarded and the next probe opens another; unhandled, the pool's
  // 'error' event would end the process.
  pool.on('error', () => {});
  return pool;
}

/**
 * Names the failure in fixed words and its code only: driver messages can carry host names, user names or
 * parts of the connection string, and this detail is served to unauthenticated callers.
 */
function describe(error: unknown): string {
  const reason = unreachableReason(error);
  if (reason) return reason;
  if (systemTablesMissing(error)) return TABLES_MISSING_REASON;
  const code = error instanceof Error ? (error as { code?: unknown }).code : undefined;
  return typeof code === 'string' ? `database error ${code}` : 'database unavailable';
}
