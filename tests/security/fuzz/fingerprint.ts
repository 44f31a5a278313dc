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
  return async () => {
    const tables = await sql<{ name: string }>`
      select quote_ident(table_schema) || '.' || quote_ident(table_name) as name
      from information_schema.tables
      where table_schema not in ('pg_catalog', 'information_schema') and table_type = 'BASE TABLE'
        and table_name not like '%throttle%' and table_name not like '%limiter%'
        and table_name <> 'datagate_item_events'
      order by 1`.execute(db);
    const parts = tables.rows.map(
      ({ name }) => sql`select ${name}::text as name, count(*)::text as rows,
        coalesce(md5(string_agg(t::text, '|' order by t::text)), '') as hash from ${sql.raw(name)} t`,
    );
    const columns = sql`select 'columns', count(*)::text,
        md5(string_agg(table_name || '.' || column_name || ':' || data_type || ':' || is_nullable || ':'
          || coalesce(column_default, ''), '|' order by table_name, column_name))
      from information_schema.columns where table_schema not in ('pg_catalog', 'information_schema')`;
    const result = await sql<{
      name: string;
      rows: string;
      hash: string;
    }>`${sql.join([...parts, columns], sql` union all `)}`.execute(db);
    return digest(result.rows);
  };
}
