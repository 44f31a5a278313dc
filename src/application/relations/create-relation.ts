import type { Accountability } from '../../domain/accountability.ts';
import type { NewRelation } from '../../domain/schema/new-relation.ts';
import { requireAdmin } from '../access.ts';
import type { Handler } from '../handler.ts';
import type { SchemaEditor } from '../ports/schema-catalog.ts';
import { type RelationView, viewRelation } from './relation-view.ts';

/** `oneField`: Directus's `meta.one_field`; null, as absent, leaves the one-to-many name to the default. */
export type CreateRelationCommand = Omit<NewRelation, 'oneField'> & { readonly oneField?: string | null };

/** POST /relations — declares a foreign key, for admins (docs/api.md §7a). */
export class CreateRelationHandler implements Handler<CreateRelationCommand, RelationView> {
  constructor(private readonly editor: SchemaEditor) {}

  async execute(
    caller: Accountability,
    { oneField, ...relation }: CreateRelationCommand,
  ): Promise<RelationView> {
    requireAdmin(caller);
    return viewRelation(
      await this.editor.createRelation(
        oneField === undefined || oneField === null ? relation : { ...relation, oneField },
      ),
    );
  }
}
