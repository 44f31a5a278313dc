import type { Accountability } from '../../domain/accountability.ts';
import type { RawItemQuery } from '../../domain/query/parse-item-query.ts';
import type { Clock } from '../ports/clock.ts';
import type { ItemStore } from '../ports/item-store.ts';
import type { SchemaCatalog } from '../ports/schema-catalog.ts';
import { requireBatchSize } from './batch-size.ts';
import { collectionFor, type SystemReach, USER_COLLECTIONS_ONLY } from './collection-access.ts';
import { newItemDraft, newItemPayload, newItemRules, writeNewItems } from './new-items.ts';
import type { ReadBack } from './read-back.ts';
import type { ReadRules } from './read-rules.ts';
import { withFreshSchema } from './with-fresh-schema.ts';
import { type WriteResult, writeResult } from './write-result.ts';
import type { WriteRules } from './write-rules.ts';

export type CreateItemsCommand = { collection: string; body: unknown; query: RawItemQuery };

/**
 * POST /items/:collection — one item (object) or several (array), all in one transaction. Each item is
 * built and checked as new-items.ts says: every item is checked against the caller's
 * create grants before anything is inserted, so no answer of the database (a unique clash, a foreign key,
 * a check) can come before a permission refusal (docs/api.md §5); the rows as stored are checked once
 * more before the transaction commits. A unique clash is answered as withClashAnswered says.
 */
export class CreateItemsHandler {
  constructor(
    private readonly catalog: SchemaCatalog,
    private readonly readRules: ReadRules,
    private readonly grants: WriteRules,
    private readonly items: ItemStore,
    private readonly readBack: ReadBack,
    private readonly clock: Clock,
    private readonly batchMax: number,
    private readonly reach: SystemReach = USER_COLLECTIONS_ONLY,
  ) {}

  execute(caller: Accountability, command: CreateItemsCommand): Promise<WriteResult> {
    return withFreshSchema(this.catalog, () => this.write(caller, command));
  }

  private async write(caller: Accountability, command: CreateItemsCommand): Promise<WriteResult> {
    const collection = collectionFor(this.catalog, caller, command.collection, this.reach);
    const many = Array.isArray(command.body);
    const raws: unknown[] = many ? (command.body as unknown[]) : [command.body];
    const now = this.clock.now();
    const rules = await newItemRules(this.grants, caller, collection, now);
    // After the right to create: to a caller without it, the limit must not tell that the collection exists.
    requireBatchSize(raws.length, this.batchMax);
    const plan = await this.readBack.plan(caller, collection, command.query, now, this.catalog.current());
    const drafts = raws.map((raw) => newItemDraft(rules, newItemPayload(rules, raw)));
    const written = await writeNewItems(
      { items: this.items, readBack: this.readBack, readRules: this.readRules },
      rules,
      plan,
      drafts,
      now,
    );
    return writeResult(many, written);
  }
}
