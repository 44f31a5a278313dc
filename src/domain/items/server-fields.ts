import { FILE_FACT_FIELDS } from '../files/file-facts.ts';
import { type CollectionSchema, FILES_COLLECTION, type FieldSchema } from '../schema/collection-schema.ts';
import { isAutoField } from './auto-fields.ts';

/**
 * Whether only the server writes this column: an auto field (auto-fields.ts), or what an upload learns of
 * a file's bytes (file-facts.ts) — a client that could set `filename_disk` could point its row at another
 * file's bytes.
 */
export function isServerField(field: FieldSchema, collection: Pick<CollectionSchema, 'name'>): boolean {
  if (isAutoField(field, collection)) return true;
  return collection.name === FILES_COLLECTION && FILE_FACT_FIELDS.has(field.name);
}
