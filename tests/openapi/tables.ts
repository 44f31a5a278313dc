import { sql } from 'kysely';
import { InMemorySchema } from '../../src/adapters/persistence/memory/in-memory-schema.ts';
import type { MikroOrmPersistence } from '../../src/adapters/persistence/mikro-orm/open-mikro-orm-persistence.ts';
import type { Persistence } from '../../src/adapters/persistence/persistence.ts';
import { userTablesDatabase } from '../../src/adapters/persistence/postgres/postgres-collections.ts';
import type { CollectionSchema } from '../../src/domain/schema/collection-schema.ts';

/**
 * Creates a table as if made by hand, from the shape introspection reports — the seed's `cargos` has a
 * column of a type the API cannot create — dropping any table of that name a previous suite left.
 */
export async function addTable(persistence: Persistence, table: CollectionSchema): Promise<void> {
  if (persistence.schema instanceof InMemorySchema) {
    if (persistence.schema.current().collections.has(table.name))
      await persistence.schema.dropCollection(table.name);
    persistence.schema.registerCollection(table);
    return;
  }
  const db = userTablesDatabase((persistence as MikroOrmPersistence).orm);
  const columns = table.fields.map(
    (field) =>
      sql`${sql.id(field.name)} ${sql.raw(field.dbType)}${field.nullable ? sql`` : sql` not null`}${
        field.defaultValue === null ? sql`` : sql` default ${sql.raw(field.defaultValue)}`
      }${field.isUnique && !field.isPrimaryKey ? sql` unique` : sql``}`,
  );
  const key = table.primaryKey === null ? [] : [sql`primary key (${sql.id(table.primaryKey)})`];
  await sql`drop table if exists ${sql.id(table.name)}`.execute(db);
  await sql`create table ${sql.id(table.name)} (${sql.join([...columns, ...key])})`.execute(db);
  await persistence.schema.refresh();
}

export async function dropTable(persistence: Persistence, name: string): Promise<void> {
  if (persistence.schema.current().collections.has(name)) await persistence.schemaEditor.dropCollection(name);
}
