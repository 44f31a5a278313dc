import type { CollectionSchema, FieldSchema } from '../../domain/schema/collection-schema.ts';
import type { FieldType } from '../../domain/schema/field-type.ts';

/** A column as the API shows it; `schema` mirrors what Directus reports about the database column. */
export type FieldView = {
  collection: string;
  field: string;
  type: FieldType;
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

export type CollectionView = { collection: string; primary_key: string | null; fields: FieldView[] };

export function viewField(collection: string, field: FieldSchema): FieldView {
  return {
    collection,
    field: field.name,
    type: field.type,
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

export function viewCollection(collection: CollectionSchema): CollectionView {
  return {
    collection: collection.name,
    primary_key: collection.primaryKey,
    fields: collection.fields.map((field) => viewField(collection.name, field)),
  };
}
