import { InMemoryItemStore } from '../../src/adapters/persistence/memory/in-memory-item-store.ts';
import type { MikroOrmPersistence } from '../../src/adapters/persistence/mikro-orm/open-mikro-orm-persistence.ts';
import type { Persistence } from '../../src/adapters/persistence/persistence.ts';
import { userTablesDatabase } from '../../src/adapters/persistence/postgres/postgres-collections.ts';
import { PostgresSchemaCatalog } from '../../src/adapters/persistence/postgres/postgres-schema-catalog.ts';
import { insertRows, type SeedRow } from './collections.ts';

/** Puts rows in a collection without the write API, on whichever backend the persistence is. */
export async function seedRows(persistence: Persistence, collection: string, rows: ReadonlyArray<SeedRow>) {
  if (persistence.items instanceof InMemoryItemStore) return persistence.items.insert(collection, rows);
  const { orm } = persistence as MikroOrmPersistence;
  if (!(persistence.schema instanceof PostgresSchemaCatalog) || !orm) {
    throw new Error('seedRows: neither the in-memory nor the PostgreSQL persistence');
  }
  await insertRows(userTablesDatabase(orm), persistence.schema, collection, rows);
}
