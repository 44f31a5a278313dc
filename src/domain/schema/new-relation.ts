import type { ReferentialAction } from './relation.ts';

/** A foreign key a client asks to create (docs/api.md §7a), before any check. */
export type NewRelation = {
  readonly collection: string;
  readonly field: string;
  readonly relatedCollection: string;
  /** The column referred to; the related collection's primary key when not given. */
  readonly relatedField?: string;
  readonly onDelete?: ReferentialAction;
  readonly onUpdate?: ReferentialAction;
  /** The one-to-many name asked for (Directus's `meta.one_field`); the default name when absent. */
  readonly oneField?: string;
};

/** Directus's name for the constraint of `collection.field` (`<collection>_<field>_foreign`). */
export function constraintNameOf(collection: string, field: string): string {
  return `${collection}_${field}_foreign`;
}
