import { StaleSchemaError } from '../ports/item-store.ts';
import type { SchemaCatalog } from '../ports/schema-catalog.ts';

/**
 * Runs a read or a write; if the store finds the schema changed under it (a table or column dropped by
 * hand, or by another instance whose announcement has not arrived yet), re-reads the schema and runs it
 * once more against the fresh snapshot. A write may run again: its transaction failed whole, before
 * anything was committed.
 */
export async function withFreshSchema<T>(catalog: SchemaCatalog, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!(error instanceof StaleSchemaError)) throw error;
    await catalog.refresh();
    return work();
  }
}
