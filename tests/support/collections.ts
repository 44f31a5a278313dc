import { type Kysely, sql } from 'kysely';
import { InMemoryItemStore } from '../../src/adapters/persistence/memory/in-memory-item-store.ts';
import { InMemorySchema } from '../../src/adapters/persistence/memory/in-memory-schema.ts';
import type { MikroOrmPersistence } from '../../src/adapters/persistence/mikro-orm/open-mikro-orm-persistence.ts';
import {
  itemStoreOptions,
  userTablesDatabase,
} from '../../src/adapters/persistence/postgres/postgres-collections.ts';
import { PostgresItemStore } from '../../src/adapters/persistence/postgres/postgres-item-store.ts';
import { PostgresSchemaCatalog } from '../../src/adapters/persistence/postgres/postgres-schema-catalog.ts';
import { PostgresSchemaEditor } from '../../src/adapters/persistence/postgres/postgres-schema-editor.ts';
import type { ItemStore } from '../../src/application/ports/item-store.ts';
import type { SchemaCatalog, SchemaEditor } from '../../src/application/ports/schema-catalog.ts';
import { fieldOf } from '../../src/domain/schema/collection-schema.ts';
import { EXISTING_TABLES, EXISTING_TABLES_DDL } from './existing-tables.ts';

/** A row to seed: canonical scalars (docs/api.md §4 forms, big numbers as strings), JSON values for json fields. */
export type SeedRow = Readonly<Record<string, unknown>>;

/** The collection-side ports of one backend, with no collections in it. */
export type Collections = {
  readonly catalog: SchemaCatalog;
  readonly editor: SchemaEditor;
  readonly store: ItemStore;
  /** Seeds rows without the store under test: plain INSERTs on PostgreSQL, the fake's own insert in memory. */
  insertRows(collection: string, rows: ReadonlyArray<SeedRow>): Promise<void>;
  /** Makes the tables of existing-tables.ts as a database's own: by SQL, or registered in memory. */
  createExistingTables(): Promise<void>;
};

/** The in-memory reference: a schema and a store over it, nothing shared with other cases. */
export function memoryCollections(): Collections {
  const schema = new InMemorySchema();
  const store = new InMemoryItemStore(schema);
  return {
    catalog: schema,
    editor: schema,
    store,
    insertRows: async (name, rows) => store.insert(name, rows),
    createExistingTables: async () => {
      for (const table of EXISTING_TABLES) schema.registerCollection(table);
    },
  };
}

/**
 * The contract suites run in a schema of their own whose name needs quoting, so that quoting is exercised
 * on every statement and nothing the other test files keep in `public` is touched.
 */
export const TEST_SCHEMA = 'items "contract" schema';

/** The PostgreSQL adapters on a database, in TEST_SCHEMA emptied first. */
export async function postgresCollections(persistence: MikroOrmPersistence): Promise<Collections> {
  const db = userTablesDatabase(persistence.orm);
  await emptySchema(db, TEST_SCHEMA);
  const catalog = new PostgresSchemaCatalog(db, TEST_SCHEMA);
  await catalog.refresh();
  return {
    catalog,
    editor: new PostgresSchemaEditor(db, catalog),
    store: new PostgresItemStore(db, TEST_SCHEMA, itemStoreOptions(persistence.orm)),
    insertRows: (collection, rows) => insertRows(db, catalog, collection, rows),
    createExistingTables: async () => {
      await sql.raw(EXISTING_TABLES_DDL(sql.id(TEST_SCHEMA).compile(db).sql)).execute(db);
      await catalog.refresh();
    },
  };
}

export async function emptySchema(db: Kysely<unknown>, schema: string) {
  await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(db);
  await sql`create schema ${sql.id(schema)}`.execute(db);
}

/** Seeds without the store under test: one INSERT per row, each value cast to its column's own type (as the catalog prints it). */
export async function insertRows(
  db: Kysely<unknown>,
  catalog: PostgresSchemaCatalog,
  name: string,
  rows: ReadonlyArray<SeedRow>,
) {
  const collection = (await catalog.refresh()).collections.get(name);
  if (!collection) throw new Error(`no collection ${name}`);
  for (const row of rows) {
    const columns = Object.keys(row);
    const values = columns.map((column) => {
      const field = fieldOf(collection, column);
      if (!field) throw new Error(`no field ${column} in ${name}`);
      const value = row[column];
      if (field.type === 'array' && value !== null) {
        // An array literal's text, from JSON: `{"a","b"}` has the same quoting rules for these values.
        const items = (value as unknown[]).map((item) =>
          item === null ? 'NULL' : JSON.stringify(String(item)),
        );
        return sql`${`{${items.join(',')}}`}::${sql.raw(field.dbType)}`;
      }
      const parameter = field.type === 'json' && value !== null ? JSON.stringify(value) : value;
      return sql`${parameter}::${sql.raw(field.dbType)}`;
    });
    await sql`insert into ${sql.id(catalog.schema, name)} (${sql.join(columns.map((column) => sql.id(column)))})
      values (${sql.join(values)})`.execute(db);
  }
}
