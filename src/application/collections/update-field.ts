import type { Accountability } from '../../domain/accountability.ts';
import {
  checkFieldMeta,
  existingMetaTarget,
  type FieldMetaClaims,
} from '../../domain/schema/directus-field-meta.ts';
import type { Handler } from '../handler.ts';
import type { SchemaCatalog } from '../ports/schema-catalog.ts';
import { type FieldView, viewField } from './collection-view.ts';
import { type FieldAddress, fieldAt } from './get-field.ts';

export type UpdateFieldCommand = FieldAddress & { meta?: FieldMetaClaims };

/**
 * PATCH /fields/:collection/:field (docs/api.md §7): Directus's way of changing a field's `meta`, which
 * datagate keeps none of. What the `meta` asks of the API must hold for the field as it is; then nothing
 * changes, and the answer is the field, as GET shows it. A column is changed by dropping and adding it.
 */
export class UpdateFieldHandler implements Handler<UpdateFieldCommand, FieldView> {
  constructor(private readonly catalog: SchemaCatalog) {}

  async execute(caller: Accountability, request: UpdateFieldCommand): Promise<FieldView> {
    const { collection, field } = fieldAt(this.catalog, caller, request);
    if (request.meta) checkFieldMeta(request.meta, existingMetaTarget(field), collection.name, 'meta');
    return viewField(collection.name, field);
  }
}
