import type { Accountability } from '../../domain/accountability.ts';
import { notFound } from '../../domain/errors.ts';
import type { ReadRule } from '../../domain/permissions/read-rule.ts';
import { authorizeDelete } from '../../domain/permissions/write-grants.ts';
import type { ScalarValue } from '../../domain/query/filter.ts';
import type { CollectionSchema, FieldSchema } from '../../domain/schema/collection-schema.ts';
import type { Clock } from '../ports/clock.ts';
import type { ItemStore, ItemWriter, StoredItem } from '../ports/item-store.ts';
import type { SchemaCatalog } from '../ports/schema-catalog.ts';
import { asCaller } from './as-caller.ts';
import { requireBatchSize } from './batch-size.ts';
import {
  collectionFor,
  requireWritable,
  type SystemReach,
  USER_COLLECTIONS_ONLY,
} from './collection-access.ts';
import { itemKey, keyFieldOf } from './item-keys.ts';
import type { ReadRules } from './read-rules.ts';
import { withFreshSchema } from './with-fresh-schema.ts';
import { parseDeleteBody, type RowTarget } from './write-body.ts';
import { withReferencesAnswered } from './write-references.ts';
import type { WriteRules } from './write-rules.ts';
import { lockVisibleMatching, lockVisibleRows } from './write-targets.ts';

export type DeleteItemsCommand = {
  collection: string;
  /** Set for DELETE /items/:collection/:key; otherwise the body names the items. */
  key?: string;
  body?: unknown;
};

/**
 * DELETE /items/:collection[/:key] — one transaction; every row is locked and checked first. A key that
 * does not exist or that the caller may not read is 404; one outside the delete permission is 403; the
 * first such key fails the request and nothing is deleted. Only then may the database refuse: rows that
 * still refer to a target are answered as withReferencesAnswered says, so referring rows the caller
 * cannot read stay unrevealed.
 */
export class DeleteItemsHandler {
  constructor(
    private readonly catalog: SchemaCatalog,
    private readonly readRules: ReadRules,
    private readonly grants: WriteRules,
    private readonly items: ItemStore,
    private readonly clock: Clock,
    private readonly batchMax: number,
    private readonly reach: SystemReach = USER_COLLECTIONS_ONLY,
  ) {}

  /** Resolves with the keys of the rows deleted (what a files delete removes the bytes of). */
  execute(caller: Accountability, command: DeleteItemsCommand): Promise<ScalarValue[]> {
    return withFreshSchema(this.catalog, () => this.write(caller, command));
  }

  private async write(caller: Accountability, command: DeleteItemsCommand): Promise<ScalarValue[]> {
    const collection = collectionFor(this.catalog, caller, command.collection, this.reach);
    const now = this.clock.now();
    const rule = await this.readRules.for(caller, collection, now);
    const grants = await this.grants.for(caller, collection, 'delete', now);
    requireWritable(collection);
    const keyField = keyFieldOf(collection);
    const target =
      command.key === undefined
        ? parseDeleteBody(command.body)
        : { kind: 'keys' as const, keys: [command.key] };

    const targets: StoredItem[] = [];
    const deleted: ScalarValue[] = [];
    const write = () =>
      this.items.write(async (writer) => {
        // What the error answer judges: rebuilt on every run, should a store run the work again.
        targets.length = 0;
        deleted.length = 0;
        const { keys, rows } = await this.lockTargets(
          caller,
          collection,
          keyField,
          rule,
          writer,
          target,
          now,
        );
        for (const key of keys) {
          const existing = rows.get(String(key));
          if (!existing) throw notFound();
          if (grants !== 'all') asCaller(caller, () => authorizeDelete(grants, existing));
          targets.push(existing);
        }
        await writer.delete(collection, keys);
        deleted.push(...keys);
      }, caller);
    const deps = { items: this.items, catalog: this.catalog, readRules: this.readRules };
    await withReferencesAnswered(deps, write, () => ({ caller, collection, targets, now }));
    return deleted;
  }

  /** The keys to delete, in the order they are checked, and their rows the caller may read, each locked once. */
  private async lockTargets(
    caller: Accountability,
    collection: CollectionSchema,
    keyField: FieldSchema,
    rule: ReadRule,
    writer: ItemWriter,
    target: RowTarget,
    now: Date,
  ): Promise<{ keys: ScalarValue[]; rows: Map<string, StoredItem> }> {
    if (target.kind === 'query') {
      return lockVisibleMatching(
        caller,
        collection,
        keyField,
        rule,
        writer,
        target.filter,
        now,
        this.batchMax,
      );
    }
    const keys = target.keys.map((key) => itemKey(keyField, key));
    requireBatchSize(keys.length, this.batchMax);
    return { keys, rows: await lockVisibleRows(caller, writer, collection, keyField, rule, keys) };
  }
}
