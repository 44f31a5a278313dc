import type { Accountability } from '../../domain/accountability.ts';
import { notFound } from '../../domain/errors.ts';
import { fieldOf } from '../../domain/schema/collection-schema.ts';
import { requireAdmin } from '../access.ts';
import { systemActivity } from '../activity/system-activity.ts';
import type { Handler } from '../handler.ts';
import { collectionFor, requireWritable } from '../items/collection-access.ts';
import type { SchemaCatalog, SchemaEditor } from '../ports/schema-catalog.ts';
import type { FieldAddress } from './get-field.ts';
import { refuseWhileReferred } from './referring-relations.ts';

export class DeleteFieldHandler implements Handler<FieldAddress, void> {
  constructor(
    private readonly catalog: SchemaCatalog,
    private readonly editor: SchemaEditor,
  ) {}

  async execute(caller: Accountability, request: FieldAddress): Promise<void> {
    requireAdmin(caller);
    const collection = collectionFor(this.catalog, caller, request.collection);
    requireWritable(collection);
    const field = fieldOf(collection, request.field);
    if (!field) throw notFound('Field');
    // The primary key is refused for what it is, by the editor, whether or not relations refer to it.
    if (!field.isPrimaryKey)
      refuseWhileReferred(this.catalog.current(), { collection: collection.name, field: request.field });
    const activity = systemActivity(
      caller,
      'delete',
      'datagate_fields',
      `${collection.name}.${request.field}`,
    );
    await this.editor.dropField(collection.name, request.field, activity);
  }
}
