import type { CreatableFieldType } from './field-type.ts';

/** A column a client asks to create (docs/api.md §7 `fields`), before any check. */
export type NewField = {
  field: string;
  type: CreatableFieldType;
  isPrimaryKey?: boolean;
  isNullable?: boolean;
  isUnique?: boolean;
  /** A literal default (string, number, boolean), or null for none. */
  defaultValue?: string | number | boolean | null;
  /** For `string`: varchar length (255 when not given). */
  maxLength?: number;
};

/**
 * Whether the column counts by itself (an identity column, docs/api.md §7): an integer or bigInteger primary
 * key with no default. Its keys may still be given on create.
 */
export function countsByItself(field: Pick<NewField, 'type' | 'isPrimaryKey' | 'defaultValue'>): boolean {
  const hasDefault = field.defaultValue !== undefined && field.defaultValue !== null;
  return !!field.isPrimaryKey && !hasDefault && (field.type === 'integer' || field.type === 'bigInteger');
}

/** varchar length when a string field gives none (Directus's default too). */
export const DEFAULT_STRING_LENGTH = 255;
