import type { Accountability } from '../../domain/accountability.ts';
import { failedValidation } from '../../domain/errors.ts';
import type { SchemaSnapshot } from '../../domain/schema/collection-schema.ts';
import type { NewRelation } from '../../domain/schema/new-relation.ts';
import { checkNewRelation } from '../../domain/schema/new-relation-rules.ts';
import { withOneFields } from '../../domain/schema/one-field-names.ts';
import { requireAdmin } from '../access.ts';
import type { Handler } from '../handler.ts';
import type { SchemaCatalog, SchemaEditor } from '../ports/schema-catalog.ts';
import { type RelationView, viewRelation } from './relation-view.ts';

/**
 * `oneField`: Directus's `meta.one_field`, the one-to-many name the client expects. The name is the
 * database's to decide (one-field-names.ts), so only that name, or null (no preference), is accepted.
 */
export type CreateRelationCommand = NewRelation & { readonly oneField?: string | null };

/** POST /relations — declares a foreign key, for admins (docs/api.md §7a). */
export class CreateRelationHandler implements Handler<CreateRelationCommand, RelationView> {
  constructor(
    private readonly catalog: SchemaCatalog,
    private readonly editor: SchemaEditor,
  ) {}

  async execute(
    caller: Accountability,
    { oneField, ...relation }: CreateRelationCommand,
  ): Promise<RelationView> {
    requireAdmin(caller);
    if (oneField !== undefined && oneField !== null) {
      const named = oneFieldOf(relation, this.catalog.current());
      if (oneField !== named) {
        throw failedValidation(
          'one_field',
          named === null
            ? `This relation can have no one-to-many field: its name would clash with a field or another relation.`
            : `The one-to-many field of this relation is named "${named}", after the collection holding the foreign key.`,
        );
      }
    }
    return viewRelation(await this.editor.createRelation(relation));
  }
}

/** The one-to-many name the relation would get once created, as introspection will name it. */
function oneFieldOf(relation: NewRelation, snapshot: SchemaSnapshot): string | null {
  const checked = checkNewRelation(relation, snapshot);
  return withOneFields([...snapshot.relations, checked], snapshot.collections).at(-1)!.oneField;
}
