import type { Accountability } from '../../domain/accountability.ts';
import { failedValidation, invalidPayload, notFound } from '../../domain/errors.ts';
import { autoFields } from '../../domain/items/auto-fields.ts';
import type { CanonicalItem } from '../../domain/items/canonical-item.ts';
import { parseItemPayload } from '../../domain/items/item-payload.ts';
import { withoutUnchangedKey } from '../../domain/items/unchanged-key.ts';
import type { ReadRule } from '../../domain/permissions/read-rule.ts';
import {
  authorizeUpdate,
  refuseUngrantedFields,
  type WriteGrants,
} from '../../domain/permissions/write-grants.ts';
import type { ScalarValue } from '../../domain/query/filter.ts';
import type { RawItemQuery } from '../../domain/query/parse-item-query.ts';
import type { CollectionSchema, FieldSchema } from '../../domain/schema/collection-schema.ts';
import type { Clock } from '../ports/clock.ts';
import type { ItemStore, ItemValues, ItemWriter, StoredItem } from '../ports/item-store.ts';
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
import type { ReadBack } from './read-back.ts';
import type { ReadRules } from './read-rules.ts';
import { withFreshSchema } from './with-fresh-schema.ts';
import { type BatchTarget, parseUpdateBody } from './write-body.ts';
import { withClashAnswered } from './write-clash.ts';
import { withReferencesAnswered } from './write-references.ts';
import { type WriteResult, writeResult } from './write-result.ts';
import type { WriteRules } from './write-rules.ts';
import { lockVisibleMatching, lockVisibleRows } from './write-targets.ts';

export type UpdateItemsCommand = {
  collection: string;
  /** Set for PATCH /items/:collection/:key; the body is then the partial item. */
  key?: string;
  body: unknown;
  query: RawItemQuery;
  /**
   * Values only the server writes, set with the change as auto fields are (never checked as fields the
   * caller sent): a file's facts when its bytes are replaced (docs/api.md §15).
   */
  serverValues?: ItemValues;
};

type Change = { key: ScalarValue; payload: ItemValues };
/** The changes and the rows they target that the caller may read, locked, keyed by `String(key)`. */
type Targets = { changes: Change[]; rows: Map<string, StoredItem> };

/** What an update's payloads are checked against. */
type PayloadFit = {
  readonly caller: Accountability;
  readonly grants: WriteGrants;
  readonly collection: CollectionSchema;
  readonly keyField: FieldSchema;
};

/**
 * PATCH /items/:collection[/:key] — one transaction. Every target row is locked and checked before any is
 * written: a key that does not exist or that the caller may not read is 404 (as for GET), a row outside
 * the update permission or a field it does not grant is 403, a failed validation 400; the first such key
 * fails the whole request and nothing is written. Only then may the database refuse: a unique clash is
 * answered as withClashAnswered says, so a value held by a row the caller cannot read stays unrevealed,
 * and rows still referring to a changed value as withReferencesAnswered says.
 */
export class UpdateItemsHandler {
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

  execute(caller: Accountability, command: UpdateItemsCommand): Promise<WriteResult> {
    return withFreshSchema(this.catalog, () => this.write(caller, command));
  }

  private async write(caller: Accountability, command: UpdateItemsCommand): Promise<WriteResult> {
    const collection = collectionFor(this.catalog, caller, command.collection, this.reach);
    const now = this.clock.now();
    const rule = await this.readRules.for(caller, collection, now);
    const grants = await this.grants.for(caller, collection, 'update', now);
    requireWritable(collection);
    const keyField = keyFieldOf(collection);
    const plan = await this.readBack.plan(caller, collection, command.query, now, this.catalog.current());
    const auto = { ...command.serverValues, ...autoFields(collection, 'update', { user: caller.user, now }) };
    const fit: PayloadFit = { caller, grants, collection, keyField };

    const single = command.key !== undefined;
    const targets: StoredItem[] = [];
    const written: CanonicalItem[] = [];
    const write = () =>
      this.items.write(async (writer) => {
        // What the error answers judge: rebuilt on every run, should a store run the work again.
        targets.length = 0;
        written.length = 0;
        const { changes, rows } = single
          ? await this.lockKeyed(caller, writer, collection, keyField, rule, [
              this.change(itemKey(keyField, command.key), command.body, fit),
            ])
          : await this.lockTargets(fit, rule, writer, parseUpdateBody(command.body), now);
        for (const change of changes) {
          const existing = rows.get(String(change.key));
          if (!existing) throw notFound();
          const merged = { ...existing, ...change.payload, ...auto };
          if (grants !== 'all') {
            asCaller(caller, () => authorizeUpdate(grants, existing, merged, Object.keys(change.payload)));
          }
          targets.push(existing);
          written.push(merged);
        }
        await this.apply(writer, collection, changes, auto);
        return this.readBack.read(
          writer,
          plan,
          changes.map((change) => change.key),
        );
      }, caller);
    const deps = { items: this.items, catalog: this.catalog, readRules: this.readRules };
    const answer = await withReferencesAnswered(
      deps,
      () => withClashAnswered(this.items, write, () => ({ caller, collection, rule, written })),
      () => ({ caller, collection, targets, now }),
    );
    return writeResult(!single, answer);
  }

  /**
   * The changes a batch body asks for, in the order they are checked, and their rows the caller may read,
   * each locked once. Every payload is parsed before any row is locked.
   */
  private async lockTargets(
    fit: PayloadFit,
    rule: ReadRule,
    writer: ItemWriter,
    { target, data }: { target: BatchTarget; data: unknown },
    now: Date,
  ): Promise<Targets> {
    const { caller, collection, keyField } = fit;
    if (target.kind === 'items') {
      requireBatchSize(target.items.length, this.batchMax);
      const changes = target.items.map((item) => {
        const raw = item as Record<string, unknown> | null;
        if (typeof raw !== 'object' || raw === null || !(keyField.name in raw)) {
          throw invalidPayload(`Each item needs its primary key "${keyField.name}".`, keyField.name);
        }
        return this.change(itemKey(keyField, raw[keyField.name]), raw, fit);
      });
      return this.lockKeyed(caller, writer, collection, keyField, rule, changes);
    }
    const payload = this.payload(data, fit, undefined);
    if (target.kind === 'keys') {
      requireBatchSize(target.keys.length, this.batchMax);
      const changes = target.keys.map((key) => ({ key: itemKey(keyField, key), payload }));
      return this.lockKeyed(caller, writer, collection, keyField, rule, changes);
    }
    const { keys, rows } = await lockVisibleMatching(
      caller,
      collection,
      keyField,
      rule,
      writer,
      target.filter,
      now,
      this.batchMax,
    );
    return { changes: keys.map((key) => ({ key, payload })), rows };
  }

  private async lockKeyed(
    caller: Accountability,
    writer: ItemWriter,
    collection: CollectionSchema,
    keyField: FieldSchema,
    rule: ReadRule,
    changes: Change[],
  ): Promise<Targets> {
    const keys = changes.map((change) => change.key);
    return { changes, rows: await lockVisibleRows(caller, writer, collection, keyField, rule, keys) };
  }

  private change(key: ScalarValue, raw: unknown, fit: PayloadFit): Change {
    return { key, payload: this.payload(raw, fit, key) };
  }

  /**
   * The partial item. Its primary key may be repeated (clients echo items back) but not changed; the
   * `keys` and `query` forms set the same data on many rows, so there it may not appear at all. A member no
   * update permission lets the client set is refused before its value is read (refuseUngrantedFields).
   */
  private payload(
    raw: unknown,
    { caller, grants, collection, keyField }: PayloadFit,
    key: ScalarValue | undefined,
  ): ItemValues {
    asCaller(caller, () => refuseUngrantedFields(grants, raw, collection, keyField.name));
    const payload = parseItemPayload(raw, collection, 'update');
    if (key !== undefined) return withoutUnchangedKey(payload, collection, key);
    if (Object.hasOwn(payload, keyField.name)) {
      throw failedValidation(keyField.name, 'The primary key cannot be set on many items at once.');
    }
    return payload;
  }

  private async apply(writer: ItemWriter, collection: CollectionSchema, changes: Change[], auto: ItemValues) {
    const shared = changes.every((change) => change.payload === changes[0]?.payload);
    if (shared && changes.length > 0) {
      await writer.update(
        collection,
        changes.map((change) => change.key),
        { ...changes[0]!.payload, ...auto },
      );
      return;
    }
    for (const change of changes)
      await writer.update(collection, [change.key], { ...change.payload, ...auto });
  }
}
