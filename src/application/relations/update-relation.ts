import type { Accountability } from '../../domain/accountability.ts';
import { failedValidation, notFound } from '../../domain/errors.ts';
import { manyToOneOf } from '../../domain/schema/relations-of.ts';
import { requireAdmin } from '../access.ts';
import type { Handler } from '../handler.ts';
import { collectionFor } from '../items/collection-access.ts';
import type { RelationChange, SchemaCatalog, SchemaEditor } from '../ports/schema-catalog.ts';
import type { RelationAddress } from './get-relation.ts';
import { type RelationView, viewRelation } from './relation-view.ts';

/**
 * `oneField`: a one-to-many name to choose, or null for the default name. `relatedCollection`, sent by
 * clients that send the whole relation back, only when unchanged.
 */
export type UpdateRelationCommand = RelationAddress &
  RelationChange & { readonly relatedCollection?: string };

/**
 * PATCH /relations/:collection/:field — changes what the foreign key does on delete and update, or its
 * one-to-many name, for admins (docs/api.md §7a). The ends of a relation are not changed: drop it and
 * create another.
 */
export class UpdateRelationHandler implements Handler<UpdateRelationCommand, RelationView> {
  constructor(
    private readonly catalog: SchemaCatalog,
    private readonly editor: SchemaEditor,
  ) {}

  async execute(
    caller: Accountability,
    { collection: name, field, onDelete, onUpdate, oneField, relatedCollection }: UpdateRelationCommand,
  ): Promise<RelationView> {
    requireAdmin(caller);
    const collection = collectionFor(this.catalog, caller, name);
    const relation = manyToOneOf(this.catalog.current(), collection.name, field);
    if (!relation) throw notFound('Relation');
    if (relatedCollection !== undefined && relatedCollection !== relation.relatedCollection) {
      throw failedValidation(
        'related_collection',
        'A relation cannot be pointed elsewhere: drop it and create another.',
      );
    }
    // Directus clients send the relation back whole: an unchanged name is no change.
    const renamed = oneField !== undefined && oneField !== relation.oneField;
    if (onDelete === undefined && onUpdate === undefined && !renamed) return viewRelation(relation);
    const change: RelationChange = {
      ...(onDelete === undefined ? {} : { onDelete }),
      ...(onUpdate === undefined ? {} : { onUpdate }),
      ...(renamed ? { oneField } : {}),
    };
    return viewRelation(await this.editor.updateRelation(collection.name, field, change));
  }
}
