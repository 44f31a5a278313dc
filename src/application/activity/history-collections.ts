import type { CollectionSchema } from '../../domain/schema/collection-schema.ts';
import { systemField } from '../system-queries/system-collections.ts';

/**
 * `/activity` as the item query language sees it (docs/api.md §14): Directus's fields of
 * `directus_activity`. `item` is the item's key as text; `collection` names a collection or a system area
 * (`datagate_users`, `datagate_roles`, `datagate_permissions`, `datagate_collections`, `datagate_fields`).
 */
export const ACTIVITY_COLLECTION: CollectionSchema = {
  name: 'activity',
  primaryKey: 'id',
  fields: [
    systemField('id', 'bigInteger', 'bigint'),
    systemField('action', 'string', 'text'),
    systemField('user', 'uuid', 'uuid', { nullable: true }),
    systemField('timestamp', 'dateTime', 'timestamp with time zone'),
    systemField('ip', 'string', 'text', { nullable: true }),
    systemField('user_agent', 'string', 'text', { nullable: true }),
    systemField('collection', 'string', 'text'),
    systemField('item', 'string', 'text', { nullable: true }),
    systemField('origin', 'string', 'text', { nullable: true }),
  ],
};

/** `/revisions`: an item write's item after the change (`data`) and the fields it wrote (`delta`). */
export const REVISIONS_COLLECTION: CollectionSchema = {
  name: 'revisions',
  primaryKey: 'id',
  fields: [
    systemField('id', 'bigInteger', 'bigint'),
    systemField('activity', 'bigInteger', 'bigint'),
    systemField('collection', 'string', 'text'),
    systemField('item', 'string', 'text'),
    systemField('data', 'json', 'jsonb', { nullable: true }),
    systemField('delta', 'json', 'jsonb', { nullable: true }),
  ],
};
