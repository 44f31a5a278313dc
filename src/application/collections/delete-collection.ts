import type { Accountability } from '../../domain/accountability.ts';
import { requireAdmin } from '../access.ts';
import { systemActivity } from '../activity/system-activity.ts';
import type { Handler } from '../handler.ts';
import { collectionFor, requireWritable } from '../items/collection-access.ts';
import type { SchemaCatalog, SchemaEditor } from '../ports/schema-catalog.ts';
import { refuseWhileReferred } from './referring-relations.ts';

/** Drops the table and its data. Permissions naming it stay, and apply again if it is recreated. */
export class DeleteCollectionHandler implements Handler<{ collection: string }, void> {
  constructor(
    private readonly catalog: SchemaCatalog,
    private readonly editor: SchemaEditor,
  ) {}

  async execute(caller: Accountability, { collection }: { collection: string }): Promise<void> {
    requireAdmin(caller);
    const target = collectionFor(this.catalog, caller, collection);
    requireWritable(target);
    refuseWhileReferred(this.catalog.current(), { collection: target.name });
    await this.editor.dropCollection(
      target.name,
      systemActivity(caller, 'delete', 'datagate_collections', target.name),
    );
  }
}
