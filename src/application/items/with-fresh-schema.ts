import { StaleSchemaError } from '../ports/item-store.ts';
import type { SchemaCatalog } from '../ports/schema-catalog.ts';

/**
 * Runs a read; if the store finds the schema changed under it (a table or column dropped by hand),
 * re-reads the schema and runs the read once more against the fresh snapshot.
 */
export async function withFreshSchema<T>(catalog: SchemaCatalog, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (!(error instanceof StaleSchemaError)) throw error;
    await catalog.refresh();
    return read();
  }
}
