import type { Accountability } from '../../domain/accountability.ts';
import type { NewField } from '../../domain/schema/new-field.ts';
import { requireAdmin } from '../access.ts';
import { systemActivity } from '../activity/system-activity.ts';
import type { Handler } from '../handler.ts';
import type { SchemaEditor } from '../ports/schema-catalog.ts';
import { type CollectionView, viewCollection } from './collection-view.ts';

export type CreateCollectionCommand = { collection: string; fields: NewField[] };

/**
 * Creates a table; the editor validates names and types before any SQL and refreshes the catalog. A new table
 * has no trigger: it is not watched.
 */
export class CreateCollectionHandler implements Handler<CreateCollectionCommand, CollectionView> {
  constructor(private readonly editor: SchemaEditor) {}

  async execute(caller: Accountability, command: CreateCollectionCommand): Promise<CollectionView> {
    requireAdmin(caller);
    const activity = systemActivity(caller, 'create', 'datagate_collections', command.collection);
    return viewCollection(
      await this.editor.createCollection(command.collection, command.fields, activity),
      false,
    );
  }
}
