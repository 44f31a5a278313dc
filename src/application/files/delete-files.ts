import type { Accountability } from '../../domain/accountability.ts';
import { FILES_COLLECTION } from '../../domain/schema/collection-schema.ts';
import type { DeleteItemsHandler } from '../items/delete-items.ts';
import type { FileBytes } from './file-bytes.ts';

export type DeleteFilesCommand = { key?: string; body?: unknown };

/**
 * DELETE /files[/:id] (docs/api.md §15): the rows as `DELETE /items` deletes them (permissions, 404 for
 * hidden rows, all or none), then the bytes and variants of each, through FileBytes.
 */
export class DeleteFilesHandler {
  constructor(
    private readonly deleteItems: DeleteItemsHandler,
    private readonly fileBytes: FileBytes,
  ) {}

  async execute(caller: Accountability, command: DeleteFilesCommand): Promise<void> {
    const deleted = await this.deleteItems.execute(caller, { collection: FILES_COLLECTION, ...command });
    for (const id of deleted) await this.fileBytes.remove(String(id));
  }
}
