import type { Accountability } from '../../domain/accountability.ts';
import { requireAdmin } from '../access.ts';
import type { Handler } from '../handler.ts';
import type { SchemaCatalog } from '../ports/schema-catalog.ts';

/** Re-reads the database schema: tables made by hand in SQL appear without a restart. */
export class ClearSchemaCacheHandler implements Handler<void, void> {
  constructor(private readonly catalog: SchemaCatalog) {}

  async execute(caller: Accountability): Promise<void> {
    requireAdmin(caller);
    await this.catalog.refresh();
  }
}
