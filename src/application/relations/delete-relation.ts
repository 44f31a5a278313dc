import type { Accountability } from '../../domain/accountability.ts';
import { requireAdmin } from '../access.ts';
import type { Handler } from '../handler.ts';
import { collectionFor } from '../items/collection-access.ts';
import type { SchemaCatalog, SchemaEditor } from '../ports/schema-catalog.ts';
import type { RelationAddress } from './get-relation.ts';

/** DELETE /relations/:collection/:field — drops the foreign key, for admins; the column and its values stay. */
export class DeleteRelationHandler implements Handler<RelationAddress, void> {
  constructor(
    private readonly catalog: SchemaCatalog,
    private readonly editor: SchemaEditor,
  ) {}

  async execute(caller: Accountability, request: RelationAddress): Promise<void> {
    requireAdmin(caller);
    const collection = collectionFor(this.catalog, caller, request.collection);
    await this.editor.dropRelation(collection.name, request.field);
  }
}
