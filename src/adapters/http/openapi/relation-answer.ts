import { z } from 'zod';
import type { RelationView } from '../../../application/relations/relation-view.ts';

export const REFERENTIAL_ACTIONS = ['NO ACTION', 'RESTRICT', 'CASCADE', 'SET NULL', 'SET DEFAULT'] as const;

const action = z.enum(REFERENTIAL_ACTIONS);

/** A relation as /relations answers it (docs/api.md §7a), typed by its view like the other answers. */
export const relationAnswer: z.ZodType<RelationView> = z.object({
  collection: z.string().describe('The collection holding the foreign key (the many side).'),
  field: z.string().describe('The foreign-key field.'),
  related_collection: z.string().describe('The collection referred to (the one side).'),
  schema: z
    .object({
      constraint_name: z.string(),
      table: z.string(),
      column: z.string(),
      foreign_key_schema: z.string(),
      foreign_key_table: z.string(),
      foreign_key_column: z.string().describe('The field referred to: the primary key or a unique field.'),
      on_update: action,
      on_delete: action,
    })
    .describe('The foreign-key constraint.'),
  meta: z
    .object({
      id: z.null(),
      many_collection: z.string(),
      many_field: z.string(),
      one_collection: z.string(),
      one_field: z
        .string()
        .nullable()
        .describe(
          'The name under which the related collection reads the referring items (one-to-many); null when that name is taken.',
        ),
      one_collection_field: z.null(),
      one_allowed_collections: z.null(),
      junction_field: z.null(),
      sort_field: z.null(),
      one_deselect_action: z.literal('nullify'),
    })
    .describe("Directus's relation metadata, derived from the constraint."),
});
