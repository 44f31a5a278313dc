import { randomUUID } from 'node:crypto';
import { FILES_COLLECTION } from '../../domain/schema/collection-schema.ts';
import type { SystemReach } from '../items/collection-access.ts';

/** The item handlers /files runs reach the files' collection (docs/api.md §15). */
export const FILES_REACH: SystemReach = new Set([FILES_COLLECTION]);

/** Where a file's bytes live once its row is committed (its `filename_disk`). */
export function storedKey(id: string): string {
  return `files/${id}`;
}

/** Where an image variant of the file lives (the images' cache); removed with the file. */
export function variantsPrefix(id: string): string {
  return `variants/${id}/`;
}

/** Where an upload's bytes wait for its row to commit; anything left here is an orphan. */
export function temporaryKey(): string {
  return `tmp/${randomUUID()}`;
}
