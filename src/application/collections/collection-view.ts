import {
  type AccountabilityMode,
  accountabilityOf,
  type CollectionSchema,
  type FieldSchema,
} from '../../domain/schema/collection-schema.ts';
import type { FieldType } from '../../domain/schema/field-type.ts';
import type { RealtimeWatchState } from '../realtime/realtime-watch-state.ts';

/**
 * A column as the API shows it; `schema` mirrors what Directus reports about the database column. An
 * enum's labels appear twice: plainly as `choices`, and as Directus's select-dropdown options
 * (`meta.options.choices`, `{ text, value }` pairs) so that Directus-minded clients find them; `meta` is
 * null on other columns. `element_type` is an array's element type, null on other columns.
 */
export type FieldView = {
  collection: string;
  field: string;
  type: FieldType;
  choices: string[] | null;
  element_type: FieldType | null;
  meta: { options: { choices: Array<{ text: string; value: string }> } } | null;
  schema: {
    data_type: string;
    is_nullable: boolean;
    is_primary_key: boolean;
    is_unique: boolean;
    has_auto_increment_or_default: boolean;
    default_value: string | null;
    max_length: number | null;
  };
};

/**
 * `read_only`: a database view, whose items can be read but not written (docs/api.md §5).
 * `meta.accountability`: what writes record (docs/api.md §14), as Directus names it.
 * `meta.realtime_watch`: whether writes made by hand in SQL are realtime events (docs/api.md §12).
 */
export type CollectionView = {
  collection: string;
  primary_key: string | null;
  read_only: boolean;
  meta: { accountability: AccountabilityMode; realtime_watch: RealtimeWatchState };
  fields: FieldView[];
};

export function viewField(collection: string, field: FieldSchema): FieldView {
  const choices = field.choices ?? field.element?.choices;
  return {
    collection,
    field: field.name,
    type: field.type,
    choices: choices ? [...choices] : null,
    element_type: field.element?.type ?? null,
    meta: choices ? { options: { choices: choices.map((label) => ({ text: label, value: label })) } } : null,
    schema: {
      data_type: field.dbType,
      is_nullable: field.nullable,
      is_primary_key: field.isPrimaryKey,
      is_unique: field.isUnique,
      has_auto_increment_or_default: field.hasDefault,
      default_value: field.defaultValue,
      max_length: field.maxLength,
    },
  };
}

export function viewCollection(
  collection: CollectionSchema,
  realtimeWatch: RealtimeWatchState,
): CollectionView {
  return {
    collection: collection.name,
    primary_key: collection.primaryKey,
    read_only: collection.readOnly === true,
    meta: { accountability: accountabilityOf(collection), realtime_watch: realtimeWatch },
    fields: collection.fields.map((field) => viewField(collection.name, field)),
  };
}
