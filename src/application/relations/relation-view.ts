import type { ReferentialAction, Relation } from '../../domain/schema/relation.ts';

/** Referential actions as Directus and `information_schema` spell them. */
export type ReferentialActionText = 'NO ACTION' | 'RESTRICT' | 'CASCADE' | 'SET NULL' | 'SET DEFAULT';

/**
 * A relation as /relations answers it (docs/api.md §7a), in Directus's shape in every profile: `schema` is
 * the foreign-key constraint, `meta` what Directus keeps in its `directus_relations` table — filled from the
 * constraint, with null where Directus records choices we have no place for (junctions, sort fields, …).
 */
export type RelationView = {
  collection: string;
  field: string;
  related_collection: string;
  schema: {
    constraint_name: string;
    table: string;
    column: string;
    foreign_key_schema: string;
    foreign_key_table: string;
    foreign_key_column: string;
    on_update: ReferentialActionText;
    on_delete: ReferentialActionText;
  };
  meta: {
    /** Directus numbers its bookkeeping rows; there are none here. */
    id: null;
    many_collection: string;
    many_field: string;
    one_collection: string;
    /** The name the related collection reads the referring items under (one-to-many); null when none. */
    one_field: string | null;
    one_collection_field: null;
    one_allowed_collections: null;
    junction_field: null;
    sort_field: null;
    one_deselect_action: 'nullify';
  };
};

/** The collections are the tables of this PostgreSQL schema (docs/api.md §4). */
const DATABASE_SCHEMA = 'public';

export function viewRelation(relation: Relation): RelationView {
  return {
    collection: relation.collection,
    field: relation.field,
    related_collection: relation.relatedCollection,
    schema: {
      constraint_name: relation.constraint,
      table: relation.collection,
      column: relation.field,
      foreign_key_schema: DATABASE_SCHEMA,
      foreign_key_table: relation.relatedCollection,
      foreign_key_column: relation.relatedField,
      on_update: actionText(relation.onUpdate),
      on_delete: actionText(relation.onDelete),
    },
    meta: {
      id: null,
      many_collection: relation.collection,
      many_field: relation.field,
      one_collection: relation.relatedCollection,
      one_field: relation.oneField,
      one_collection_field: null,
      one_allowed_collections: null,
      junction_field: null,
      sort_field: null,
      one_deselect_action: 'nullify',
    },
  };
}

export function actionText(action: ReferentialAction): ReferentialActionText {
  return action.toUpperCase() as ReferentialActionText;
}
