import type { Accountability } from '../../domain/accountability.ts';
import type { AccountabilityMode } from '../../domain/schema/collection-schema.ts';
import { requireAdmin } from '../access.ts';
import { systemActivity } from '../activity/system-activity.ts';
import type { Handler } from '../handler.ts';
import { collectionFor } from '../items/collection-access.ts';
import type { SchemaCatalog, SchemaEditor } from '../ports/schema-catalog.ts';
import { type CollectionView, viewCollection } from './collection-view.ts';

/** What PATCH /collections/:collection may change: `meta.accountability` (docs/api.md §7); absent, nothing. */
export type UpdateCollectionCommand = {
  readonly collection: string;
  readonly accountability?: AccountabilityMode;
};

export class UpdateCollectionHandler implements Handler<UpdateCollectionCommand, CollectionView> {
  constructor(
    private readonly catalog: SchemaCatalog,
    private readonly editor: SchemaEditor,
  ) {}

  async execute(caller: Accountability, command: UpdateCollectionCommand): Promise<CollectionView> {
    requireAdmin(caller);
    const collection = collectionFor(this.catalog, caller, command.collection);
    if (command.accountability === undefined) return viewCollection(collection);
    const activity = systemActivity(caller, 'update', 'datagate_collections', collection.name);
    return viewCollection(
      await this.editor.setAccountability(collection.name, command.accountability, activity),
    );
  }
}
