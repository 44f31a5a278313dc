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

/** varchar length when a string field gives none (Directus's default too). */
export const DEFAULT_STRING_LENGTH = 255;
