import type { Accountability } from '../../domain/accountability.ts';
import { notFound } from '../../domain/errors.ts';
import type { RawItemQuery } from '../../domain/query/parse-item-query.ts';
import type { UpdateItemsHandler } from '../items/update-items.ts';
import type { WriteResult } from '../items/write-result.ts';
import type { QueryHistoryHandler } from './query-history.ts';

export type RevertRevisionCommand = { readonly revision: string; readonly query: RawItemQuery };

/**
 * POST /utils/revert/:revision (docs/api.md §14): the item gets the revision's `data` back through the
 * ordinary update, with its permissions, validation, and its own activity and revision. A revision the
 * caller may not see is 404 like a missing one; what they see of it is what they may read, so a revert
 * only ever writes fields the caller can read, and the update permission decides whether they may.
 */
export class RevertRevisionHandler {
  constructor(
    private readonly revisions: QueryHistoryHandler,
    private readonly updateItems: UpdateItemsHandler,
  ) {}

  async execute(caller: Accountability, command: RevertRevisionCommand): Promise<WriteResult> {
    const revision = await this.revisions.find(caller, command.revision);
    if (revision.data === null || typeof revision.data !== 'object') throw notFound();
    return this.updateItems.execute(caller, {
      collection: String(revision.collection),
      key: String(revision.item),
      body: revision.data,
      query: command.query,
    });
  }
}
