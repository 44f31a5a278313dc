import type { Accountability } from '../../domain/accountability.ts';
import { fieldOf } from '../../domain/schema/collection-schema.ts';
import { checkFieldMeta, newMetaTarget } from '../../domain/schema/directus-field-meta.ts';
import { requireAdmin } from '../access.ts';
import { systemActivity } from '../activity/system-activity.ts';
import type { Handler } from '../handler.ts';
import { collectionFor, requireWritable } from '../items/collection-access.ts';
import type { SchemaCatalog, SchemaEditor } from '../ports/schema-catalog.ts';
import { type FieldView, viewField } from './collection-view.ts';
import type { RequestedField } from './create-collection.ts';

export type CreateFieldCommand = { collection: string; field: RequestedField };

export class CreateFieldHandler implements Handler<CreateFieldCommand, FieldView> {
  constructor(
    private readonly catalog: SchemaCatalog,
    private readonly editor: SchemaEditor,
  ) {}

  async execute(caller: Accountability, request: CreateFieldCommand): Promise<FieldView> {
    requireAdmin(caller);
    const collection = collectionFor(this.catalog, caller, request.collection);
    requireWritable(collection);
    const { meta, ...field } = request.field;
    if (meta) checkFieldMeta(meta, newMetaTarget(field), collection.name, 'meta');
    const activity = systemActivity(caller, 'create', 'datagate_fields', `${collection.name}.${field.field}`);
    const changed = await this.editor.addField(collection.name, field, activity);
    return viewField(changed.name, fieldOf(changed, field.field)!);
  }
}
