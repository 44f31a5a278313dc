import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import { InMemorySchema } from '../../../src/adapters/persistence/memory/in-memory-schema.ts';
import type { MikroOrmPersistence } from '../../../src/adapters/persistence/mikro-orm/open-mikro-orm-persistence.ts';
import type { Persistence } from '../../../src/adapters/persistence/persistence.ts';
import { userTablesDatabase } from '../../../src/adapters/persistence/postgres/postgres-collections.ts';

/**
 * A cheap summary of everything a request could have written: per table, its row count and a hash of its
 * rows (system tables and every user table), and the tables' columns. Equal before and after a refused
 * write means the refusal wrote nothing. The login throttle's own tables are left out: counting failures
 * is what a refused login is meant to write. So is the change log: its pruner deletes events older than the
 * replay window on its own clock (events of earlier suites age out during a long run), and an event is
 * written only with the item rows, which are here.
 */
export type Fingerprint = () => Promise<string>;

export function fingerprintOf(persistence: Persistence): Fingerprint {
  return persistence.schema instanceof InMemorySchema
    ? memoryFingerprint(persistence, persistence.schema)
    : postgresFingerprint(persistence as MikroOrmPersistence);
}

const digest = (value: unknown) =>
  createHash('sha1')
    .update(JSON.stringify(value, (_key, member) => (member instanceof Map ? [...member] : member)))
    .digest('hex');

function memoryFingerprint(persistence: Persistence, schema: InMemorySchema): Fingerprint {
  // The in-memory session store has no listing port; its map is read directly, as the database's table is.
  const sessions = () => (persistence.refreshTokens as unknown as { tokens: Map<string, unknown> }).tokens;
  return async () => {
    const collections = [...schema.current().collections.values()];
    return digest({
      users: await persistence.users.list(),
      roles: await persistence.roles.list(),
      permissions: await persistence.permissions.list(),
      sessions: [...sessions().values()],
      tables: collections.map((collection) => ({ collection, rows: schema.table(collection.name)?.rows })),
    });
  };
}

function postgresFingerprint(persistence: MikroOrmPersistence): Fingerprint {
  const db = userTablesDatabase(persistence.orm);
  // Read from pg_catalog, not information_schema: its views cost ~10 ms a query, and the fuzzer takes a
  // fingerprint before and after every write. Columns are those of every relation information_schema.columns
  // lists (tables, views, foreign and partitioned tables, materialized views), their type with its modifier.
  return async () => {
    const tables = await sql<{ name: string }>`
      select quote_ident(n.nspname) || '.' || quote_ident(c.relname) as name
      from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where c.relkind in ('r', 'p') and n.nspname not in ('pg_catalog', 'information_schema', 'pg_toast')
        and c.relname not like '%throttle%' and c.relname not like '%limiter%'
        and c.relname <> 'datagate_item_events'
      order by 1`.execute(db);
    const parts = tables.rows.map(
      ({ name }) => sql`select ${name}::text as name, count(*)::text as rows,
        coalesce(md5(string_agg(t::text, '|' order by t::text)), '') as hash from ${sql.raw(name)} t`,
    );
    const columns = sql`select 'columns', count(*)::text,
        md5(string_agg(c.relname || '.' || a.attname || ':' || format_type(a.atttypid, a.atttypmod) || ':'
          || a.attnotnull::text || ':' || coalesce(pg_get_expr(d.adbin, d.adrelid), ''),
          '|' order by c.relname, a.attname))
      from pg_attribute a
        join pg_class c on c.oid = a.attrelid
        join pg_namespace n on n.oid = c.relnamespace
        left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
      where a.attnum > 0 and not a.attisdropped and c.relkind in ('r', 'p', 'v', 'f', 'm')
        and n.nspname not in ('pg_catalog', 'information_schema', 'pg_toast')`;
    const result = await sql<{
      name: string;
      rows: string;
      hash: string;
    }>`${sql.join([...parts, columns], sql` union all `)}`.execute(db);
    return digest(result.rows);
  };
}

/**
 * The fingerprint of what is stored, taken again only once a request was sent since the last one: nothing
 * but a request writes the fingerprinted tables, so the state after one request is the state before the
 * next, and the run that follows a refusal starts from the state taken after it.
 */
export class StoredState {
  private known: Promise<string> | undefined;

  constructor(private readonly fingerprint: Fingerprint) {}

  now(): Promise<string> {
    this.known ??= this.fingerprint();
    return this.known;
  }

  /** Call before each request is sent. */
  changing(): void {
    this.known = undefined;
  }
}
