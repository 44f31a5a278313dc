import type { Accountability } from '../../domain/accountability.ts';
import { autoFields, newPrimaryKey } from '../../domain/items/auto-fields.ts';
import { parseItemPayload, requireCreatableFields } from '../../domain/items/item-payload.ts';
import { storedDraft } from '../../domain/items/stored-draft.ts';
import {
  authorizeCreate,
  authorizeCreateDraft,
  presetsOf,
  type WriteGrant,
} from '../../domain/permissions/write-grants.ts';
import type { ScalarValue } from '../../domain/query/filter.ts';
import type { RawItemQuery } from '../../domain/query/parse-item-query.ts';
import type { CollectionSchema } from '../../domain/schema/collection-schema.ts';
import type { Clock } from '../ports/clock.ts';
import type { ItemStore, ItemValues, ItemWriter } from '../ports/item-store.ts';
import type { SchemaCatalog } from '../ports/schema-catalog.ts';
import { asCaller } from './as-caller.ts';
import { requireBatchSize } from './batch-size.ts';
import { collectionFor, requireWritable } from './collection-access.ts';
import type { ReadBack } from './read-back.ts';
import type { ReadRules } from './read-rules.ts';
import { withClashAnswered } from './write-clash.ts';
import { type WriteResult, writeResult } from './write-result.ts';
import type { WriteRules } from './write-rules.ts';

export type CreateItemsCommand = { collection: string; body: unknown; query: RawItemQuery };

/**
 * POST /items/:collection — one item (object) or several (array), all in one transaction. Each item is
 * presets, then the payload, then the server's own fields. Every item is checked against the caller's
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
  ) {}

  async execute(caller: Accountability, command: CreateItemsCommand): Promise<WriteResult> {
    const collection = collectionFor(this.catalog, caller, command.collection);
    const many = Array.isArray(command.body);
    const raws: unknown[] = many ? (command.body as unknown[]) : [command.body];
    requireBatchSize(raws.length, this.batchMax);
    const now = this.clock.now();
    const grants = await this.grants.for(caller, collection, 'create', now);
    requireWritable(collection);
    const plan = await this.readBack.plan(caller, collection, command.query, now, this.catalog.current());
    const presets = presetsOf(grants);
    const auto = autoFields(collection, 'create', { user: caller.user, now });
    const drafts = raws.map((raw) => {
      const payload = parseItemPayload(raw, collection, 'create');
      const key =
        collection.primaryKey !== null && payload[collection.primaryKey] === undefined
          ? newPrimaryKey(collection)
          : {};
      const row: ItemValues = { ...presets, ...key, ...payload, ...auto };
      requireCreatableFields(row, collection);
      return { row, payloadFields: Object.keys(payload), stored: storedDraft(row, collection) };
    });
    for (const { stored, payloadFields } of drafts) {
      asCaller(caller, () => authorizeCreateDraft(grants, stored.item, stored.unknown, payloadFields));
    }
    const written = await withClashAnswered(
      this.items,
      () =>
        this.items.write(async (writer) => {
          const keys = await writer.insert(
            collection,
            drafts.map((draft) => draft.row),
          );
          if (grants !== 'all') await this.authorize(caller, writer, collection, grants, drafts, keys);
          return this.readBack.read(writer, plan, keys);
        }, caller),
      async () => ({
        caller,
        collection,
        rule: await this.readRules.optional(caller, collection, now),
        written: drafts.map((draft) => draft.stored.item),
      }),
    );
    return writeResult(many, written);
  }

  /**
   * The create permission is checked again on the rows as stored, inside the transaction: the database
   * fills defaults, and a rule about a column it computes (a sequence, `now()`) could not be decided
   * before the insert. A refusal rolls the whole batch back. Without a primary key the rows cannot be
   * read back, so the values sent are checked instead.
   */
  private async authorize(
    caller: Accountability,
    writer: ItemWriter,
    collection: CollectionSchema,
    grants: ReadonlyArray<WriteGrant>,
    drafts: ReadonlyArray<{ row: ItemValues; payloadFields: string[] }>,
    keys: ReadonlyArray<ScalarValue>,
  ): Promise<void> {
    const stored = keys.length === 0 ? null : await writer.lockRows(collection, keys);
    drafts.forEach((draft, index) => {
      const row = stored?.get(String(keys[index])) ?? draft.row;
      asCaller(caller, () => authorizeCreate(grants, row, draft.payloadFields));
    });
  }
}
