import type { Accountability } from '../../domain/accountability.ts';
import { notFound } from '../../domain/errors.ts';
import { fieldOf } from '../../domain/schema/collection-schema.ts';
import { requireAdmin } from '../access.ts';
import { collectionFor } from '../items/collection-access.ts';
import type { SchemaCatalog, SchemaEditor } from '../ports/schema-catalog.ts';

export class DeleteFieldHandler {
  constructor(
    private readonly catalog: SchemaCatalog,
    private readonly editor: SchemaEditor,
  ) {}

  async execute(caller: Accountability, collectionName: string, name: string): Promise<void> {
    requireAdmin(caller);
    const collection = collectionFor(this.catalog, caller, collectionName);
    if (!fieldOf(collection, name)) throw notFound('Field');
    await this.editor.dropField(collection.name, name);
  }
}
