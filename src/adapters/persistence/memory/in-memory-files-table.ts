import {
  type CollectionSchema,
  FILES_COLLECTION,
  type FieldSchema,
} from '../../../domain/schema/collection-schema.ts';
import type { FieldType } from '../../../domain/schema/field-type.ts';

function column(
  name: string,
  type: FieldType,
  dbType: string,
  options: Partial<FieldSchema> = {},
): FieldSchema {
  const varchar = /^character varying\((\d+)\)$/.exec(dbType);
  return {
    name,
    type,
    dbType,
    nullable: true,
    defaultValue: null,
    isPrimaryKey: false,
    isUnique: false,
    hasDefault: false,
    maxLength: varchar ? Number(varchar[1]) : null,
    ...options,
  };
}

/** The files' table as migration 0007-files makes it and introspection reads it (docs/api.md §15). */
export const FILES_TABLE: CollectionSchema = {
  name: FILES_COLLECTION,
  primaryKey: 'id',
  fields: [
    column('id', 'uuid', 'uuid', { nullable: false, isPrimaryKey: true, isUnique: true }),
    column('filename_disk', 'string', 'character varying(255)'),
    column('filename_download', 'string', 'character varying(255)', { nullable: false }),
    column('title', 'string', 'character varying(255)'),
    column('type', 'string', 'character varying(255)'),
    column('filesize', 'bigInteger', 'bigint'),
    column('width', 'integer', 'integer'),
    column('height', 'integer', 'integer'),
    column('description', 'text', 'text'),
    column('metadata', 'json', 'jsonb'),
    column('checksum', 'string', 'character varying(64)'),
    column('uploaded_by', 'uuid', 'uuid'),
    column('uploaded_on', 'dateTime', 'timestamp with time zone'),
    column('modified_by', 'uuid', 'uuid'),
    column('modified_on', 'dateTime', 'timestamp with time zone'),
  ],
};
