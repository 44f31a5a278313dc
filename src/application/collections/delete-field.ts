import type { Accountability } from '../../domain/accountability.ts';
import { notFound } from '../../domain/errors.ts';
import { fieldOf } from '../../domain/schema/collection-schema.ts';
import { requireAdmin } from '../access.ts';
import { systemActivity } from '../activity/system-activity.ts';
import type { Handler } from '../handler.ts';
import { collectionFor, requireWritable } from '../items/collection-access.ts';
import type { SchemaCatalog, SchemaEditor } from '../ports/schema-catalog.ts';
import type { FieldAddress } from './get-field.ts';

export class DeleteFieldHandler implements Handler<FieldAddress, void> {
  constructor(
    private readonly catalog: SchemaCatalog,
    private readonly editor: SchemaEditor,
  ) {}

  async execute(caller: Accountability, request: FieldAddress): Promise<void> {
    requireAdmin(caller);
    const collection = collectionFor(this.catalog, caller, request.collection);
    requireWritable(collection);
    if (!fieldOf(collection, request.field)) throw notFound('Field');
    const activity = systemActivity(
      caller,
      'delete',
      'datagate_fields',
      `${collection.name}.${request.field}`,
    );
    await this.editor.dropField(collection.name, request.field, activity);
  }
}
