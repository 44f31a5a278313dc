import type { Accountability } from '../../domain/accountability.ts';
import { invalidPayload, notFound } from '../../domain/errors.ts';
import { authorizeDelete } from '../../domain/permissions/write-grants.ts';
import type { ScalarValue } from '../../domain/query/filter.ts';
import type { Clock } from '../ports/clock.ts';
import type { ItemStore } from '../ports/item-store.ts';
import type { SchemaCatalog } from '../ports/schema-catalog.ts';
import { asCaller } from './as-caller.ts';
import { collectionFor } from './collection-access.ts';
import { itemKey, keyFieldOf } from './item-keys.ts';
import type { ReadRules } from './read-rules.ts';
import { parseDeleteBody } from './write-body.ts';
import type { WriteRules } from './write-rules.ts';
import { isVisible, lockVisibleMatching } from './write-targets.ts';

export type DeleteItemsCommand = {
  collection: string;
  /** Set for DELETE /items/:collection/:key; otherwise the body names the items. */
  key?: string;
  body?: unknown;
};

/**
 * DELETE /items/:collection[/:key] — one transaction; every row is locked and checked first. A key that
 * does not exist or that the caller may not read is 404; one outside the delete permission is 403; the
 * first such key fails the request and nothing is deleted.
 */
export class DeleteItemsHandler {
  constructor(
    private readonly catalog: SchemaCatalog,
    private readonly readRules: ReadRules,
    private readonly grants: WriteRules,
    private readonly items: ItemStore,
    private readonly clock: Clock,
    private readonly batchMax: number,
  ) {}

  async execute(caller: Accountability, command: DeleteItemsCommand): Promise<void> {
    const collection = collectionFor(this.catalog, caller, command.collection);
    const keyField = keyFieldOf(collection);
    const now = this.clock.now();
    const rule = await this.readRules.for(caller, collection, now);
    const grants = await this.grants.for(caller, collection, 'delete', now);
    const target =
      command.key === undefined
        ? parseDeleteBody(command.body)
        : { kind: 'keys' as const, keys: [command.key] };

    await this.items.write(async (writer) => {
      const keys =
        target.kind === 'query'
          ? (await lockVisibleMatching(caller, collection, rule, writer, target.filter, now)).map(
              (row) => row[keyField.name] as ScalarValue,
            )
          : target.keys.map((key) => itemKey(keyField, key));
      if (keys.length > this.batchMax) throw invalidPayload(`At most ${this.batchMax} items in one request.`);
      const rows = await writer.lockRows(collection, keys);
      for (const key of keys) {
        const existing = rows.get(String(key));
        if (!existing || !isVisible(rule, existing, collection)) throw notFound();
        if (grants !== 'all') asCaller(caller, () => authorizeDelete(grants, existing));
      }
      await writer.delete(collection, keys);
    });
  }
}
