import { randomUUID } from 'node:crypto';
import { FILES_COLLECTION } from '../../domain/schema/collection-schema.ts';
import type { SystemReach } from '../items/collection-access.ts';

/** The item handlers /files runs reach the files' collection (docs/api.md §15). */
export const FILES_REACH: SystemReach = new Set([FILES_COLLECTION]);

/** Ids become key segments: anything but a plain token could name a key outside the file's own. */
const SAFE_ID = /^[A-Za-z0-9_-]{1,200}$/;

function segment(id: string): string {
  if (!SAFE_ID.test(id)) throw new Error(`file id ${JSON.stringify(id)} cannot name a key`);
  return id;
}

/** Where a file's bytes live once its row is committed (its `filename_disk`). */
export function storedKey(id: string): string {
  return `files/${segment(id)}`;
}

/**
 * Where the image variants of the file live (`variants/<id>/<digest>`, decision 0039); FileBytes removes
 * them when the file's bytes are replaced or its row deleted.
 */
export function variantsPrefix(id: string): string {
  return `variants/${segment(id)}/`;
}

/** Where an upload's bytes wait for its row to commit; anything left here is an orphan. */
export function temporaryKey(): string {
  return `tmp/${randomUUID()}`;
}
