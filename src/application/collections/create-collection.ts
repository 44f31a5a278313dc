import type { Accountability } from '../../domain/accountability.ts';
import type { AccountabilityMode } from '../../domain/schema/collection-schema.ts';
import {
  checkFieldMeta,
  type FieldMetaClaims,
  newMetaTarget,
} from '../../domain/schema/directus-field-meta.ts';
import type { NewField } from '../../domain/schema/new-field.ts';
import { requireAdmin } from '../access.ts';
import { systemActivity } from '../activity/system-activity.ts';
import type { Handler } from '../handler.ts';
import type { SchemaEditor } from '../ports/schema-catalog.ts';
import { type CollectionView, viewCollection } from './collection-view.ts';

/** A field to create, with what its Directus `meta` asks of the API (docs/api.md §7), if it came with one. */
export type RequestedField = NewField & { readonly meta?: FieldMetaClaims };

export type CreateCollectionCommand = {
  collection: string;
  fields: ReadonlyArray<RequestedField>;
  /** What writes record (`meta.accountability`); `all` when absent. */
  accountability?: AccountabilityMode;
};

/**
 * Creates a table; the editor validates names and types before any SQL and refreshes the catalog. Every
 * field's `meta` is judged first, so a refused one creates nothing. A new table has no trigger: it is not
 * watched.
 */
export class CreateCollectionHandler implements Handler<CreateCollectionCommand, CollectionView> {
  constructor(private readonly editor: SchemaEditor) {}

  async execute(caller: Accountability, command: CreateCollectionCommand): Promise<CollectionView> {
    requireAdmin(caller);
    const fields = command.fields.map(({ meta, ...field }, index) => {
      if (meta) checkFieldMeta(meta, newMetaTarget(field), command.collection, `fields.${index}.meta`);
      return field;
    });
    const activity = systemActivity(caller, 'create', 'datagate_collections', command.collection);
    return viewCollection(
      await this.editor.createCollection(command.collection, fields, activity, command.accountability),
      false,
    );
  }
}
