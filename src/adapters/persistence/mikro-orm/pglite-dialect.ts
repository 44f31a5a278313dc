import type { PGlite, Results } from '@electric-sql/pglite';
import {
  CompiledQuery,
  type DatabaseConnection,
  type DatabaseIntrospector,
  type Dialect,
  type DialectAdapter,
  type Driver,
  type Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type QueryCompiler,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';
import type { PoolUsage } from '../../../application/ports/metrics.ts';

/**
 * Kysely dialect over an in-process PGlite, handed to MikroORM as `driverOptions`.
 * PGlite is a single backend session, so the dialect exposes exactly one connection behind a FIFO mutex:
 * a transaction holds it from `begin` to `commit`, and nobody else's statement can land inside it.
 * Destroying the dialect (MikroORM does on `orm.close()`) leaves PGlite open: whoever created it closes it.
 */
export class PGliteDialect implements Dialect {
  private driver: PGliteDriver | undefined;

  constructor(private readonly db: PGlite) {}

  createAdapter(): DialectAdapter {
    return new PostgresAdapter();
  }

  createDriver(): Driver {
    this.driver = new PGliteDriver(this.db);
    return this.driver;
  }

  /** The one connection as a pool of one: held or not, and how many wait for it. */
  usage(): PoolUsage | undefined {
    return this.driver?.usage();
  }

  createQueryCompiler(): QueryCompiler {
    return new PostgresQueryCompiler();
  }

  createIntrospector(db: Kysely<unknown>): DatabaseIntrospector {
    return new PostgresIntrospector(db);
  }
}

class PGliteDriver implements Driver {
  private readonly connection: PGliteConnection;
  private queue: Promise<void> = Promise.resolve();
  private releaseHeld: (() => void) | null = null;
  private waiting = 0;

  constructor(private readonly db: PGlite) {
    this.connection = new PGliteConnection(db);
  }

  usage(): PoolUsage {
    return { size: 1, max: 1, inUse: this.releaseHeld ? 1 : 0, waiting: this.waiting };
  }

  async init() {
    await this.db.waitReady;
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    // Chaining on one promise makes waiters proceed in arrival order (FIFO).
    const previous = this.queue;
    let release!: () => void;
    this.queue = new Promise<void>((resolve) => {
      release = resolve;
    });
    this.waiting++;
    try {
      await previous;
    } finally {
      this.waiting--;
    }
    this.releaseHeld = release;
    return this.connection;
  }

  async releaseConnection() {
    const release = this.releaseHeld;
    this.releaseHeld = null;
    release?.();
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings) {
    const modes = [
      settings.isolationLevel ? `isolation level ${settings.isolationLevel}` : '',
      settings.accessMode ?? '',
    ].filter(Boolean);
    await connection.executeQuery(CompiledQuery.raw(['begin', ...modes].join(' ')));
  }

  async commitTransaction(connection: DatabaseConnection) {
    await connection.executeQuery(CompiledQuery.raw('commit'));
  }

  async rollbackTransaction(connection: DatabaseConnection) {
    await connection.executeQuery(CompiledQuery.raw('rollback'));
  }

  // MikroORM nests transactions (the migrator does) through these three; without them it refuses to run.
  async savepoint(connection: DatabaseConnection, name: string) {
    await connection.executeQuery(CompiledQuery.raw(`savepoint ${quoteIdentifier(name)}`));
  }

  async rollbackToSavepoint(connection: DatabaseConnection, name: string) {
    await connection.executeQuery(CompiledQuery.raw(`rollback to savepoint ${quoteIdentifier(name)}`));
  }

  async releaseSavepoint(connection: DatabaseConnection, name: string) {
    await connection.executeQuery(CompiledQuery.raw(`release savepoint ${quoteIdentifier(name)}`));
  }

  async destroy() {}
}

const AFFECTING_COMMANDS = new Set(['INSERT', 'UPDATE', 'DELETE', 'MERGE']);

class PGliteConnection implements DatabaseConnection {
  constructor(private readonly db: PGlite) {}

  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    // A statement without parameters goes through the simple protocol (`exec`), the only one that accepts
    // several statements at once, as migrations send them. Its last result is the one that answers (PGlite
    // sums affectedRows over the statements of one `exec`; exact for the usual single statement).
    const result: Results<R> | undefined =
      compiled.parameters.length === 0
        ? ((await this.db.exec(compiled.sql)).at(-1) as Results<R> | undefined)
        : await this.db.query<R>(compiled.sql, [...compiled.parameters]);
    if (!result) return { rows: [] };
    const affects = result.command === undefined || AFFECTING_COMMANDS.has(result.command.toUpperCase());
    return {
      rows: result.rows,
      ...(affects && result.affectedRows !== undefined
        ? { numAffectedRows: BigInt(result.affectedRows) }
        : {}),
    };
  }

  // biome-ignore lint/correctness/useYield: streaming is refused up front; PGlite returns whole result sets.
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('PGlite dialect does not support streaming queries');
  }
}

function quoteIdentifier(name: string) {
  return `"${name.replaceAll('"', '""')}"`;
}
