import type { Accountability } from '../../domain/accountability.ts';
import { invalidPayload } from '../../domain/errors.ts';
import type { RawItemQuery } from '../../domain/query/parse-item-query.ts';
import { FILES_COLLECTION } from '../../domain/schema/collection-schema.ts';
import type { CreateItemsHandler } from '../items/create-items.ts';
import type { WriteResult } from '../items/write-result.ts';

export type CreateFilesCommand = { body: unknown; query: RawItemQuery };

/**
 * POST /files with a JSON body (docs/api.md §15): rows without bytes (an upload may replace them later),
 * created as `POST /items` creates items. Their id is the server's to choose, as an upload's is.
 */
export class CreateFilesHandler {
  constructor(private readonly createItems: CreateItemsHandler) {}

  execute(caller: Accountability, command: CreateFilesCommand): Promise<WriteResult> {
    const items = Array.isArray(command.body) ? command.body : [command.body];
    for (const item of items) {
      if (typeof item === 'object' && item !== null && Object.hasOwn(item, 'id')) {
        throw invalidPayload('A file\'s "id" is chosen by the server.', 'id');
      }
    }
    return this.createItems.execute(caller, { collection: FILES_COLLECTION, ...command });
  }
}
