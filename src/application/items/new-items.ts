import type { Accountability } from '../../domain/accountability.ts';
import { autoFields, newPrimaryKey } from '../../domain/items/auto-fields.ts';
import { parseItemPayload, requireCreatableFields } from '../../domain/items/item-payload.ts';
import { type StoredDraft, storedDraft } from '../../domain/items/stored-draft.ts';
import {
  authorizeCreate,
  authorizeCreateDraft,
  presetsOf,
  refuseUngrantedFields,
  type WriteGrants,
} from '../../domain/permissions/write-grants.ts';
import type { ScalarValue } from '../../domain/query/filter.ts';
import type { CollectionSchema } from '../../domain/schema/collection-schema.ts';
import type { ItemStore, ItemValues, ItemWriter } from '../ports/item-store.ts';
import { asCaller } from './as-caller.ts';
import { requireWritable } from './collection-access.ts';
import type { ReadBack, ReadBackPlan } from './read-back.ts';
import type { ReadRules } from './read-rules.ts';
import { withClashAnswered } from './write-clash.ts';
import type { WriteRules } from './write-rules.ts';

/**
 * The checks every new item goes through, whether it comes from `POST /items` or an import: the caller's
 * create grants with their presets, the server's own fields, the generated key, the required columns, the
 * permission on the item as it will be stored, and again on the rows as stored (docs/api.md §5).
 */
export type NewItemRules = {
  readonly caller: Accountability;
  readonly collection: CollectionSchema;
  readonly grants: WriteGrants;
  readonly presets: ItemValues;
  readonly auto: ItemValues;
};

/** One new item as it will be inserted, with what the permission checks need to know of it. */
export type NewItemDraft = {
  readonly row: ItemValues;
  /** The fields the caller sent (not presets, keys or server fields): those a permission's `fields` limit. */
  readonly payloadFields: ReadonlyArray<string>;
  readonly stored: StoredDraft;
};

/** Refuses a caller without a create grant (403/401), then a view (403 READ_ONLY_COLLECTION). */
export async function newItemRules(
  writeRules: WriteRules,
  caller: Accountability,
  collection: CollectionSchema,
  now: Date,
): Promise<NewItemRules> {
  const grants = await writeRules.for(caller, collection, 'create', now);
  requireWritable(collection);
  return {
    caller,
    collection,
    grants,
    presets: presetsOf(grants),
    auto: autoFields(collection, 'create', { user: caller.user, now }),
  };
}

/**
 * One new item's payload, checked against the collection; a member no create permission lets the client
 * set is refused before its value is read (refuseUngrantedFields).
 */
export function newItemPayload(rules: NewItemRules, raw: unknown): ItemValues {
  asCaller(rules.caller, () => refuseUngrantedFields(rules.grants, raw, rules.collection));
  return parseItemPayload(raw, rules.collection, 'create');
}

/** Presets, then the generated key, then the payload, then the server's fields, each winning over the last. */
export function newItemDraft(rules: NewItemRules, payload: ItemValues): NewItemDraft {
  const { collection } = rules;
  const key =
    collection.primaryKey !== null && payload[collection.primaryKey] === undefined
      ? newPrimaryKey(collection)
      : {};
  const row: ItemValues = { ...rules.presets, ...key, ...payload, ...rules.auto };
  requireCreatableFields(row, collection);
  return { row, payloadFields: Object.keys(payload), stored: storedDraft(row, collection) };
}

/** The create permission on the item as it will be stored, before anything the database could answer. */
export function authorizeNewItem(rules: NewItemRules, draft: NewItemDraft): void {
  asCaller(rules.caller, () =>
    authorizeCreateDraft(rules.grants, draft.stored.item, draft.stored.unknown, draft.payloadFields),
  );
}

/**
 * Inserts the checked drafts and returns their keys. `bulk` uses the writer's statement for many rows.
 *
 * The create permission is checked again on the rows as stored, inside the transaction: the database
 * fills defaults, and a rule about a column it computes (a sequence, `now()`) could not be decided
 * before the insert. A refusal rolls the whole transaction back. Without a primary key the rows cannot be
 * read back, so the values sent are checked instead.
 */
export async function insertNewItems(
  writer: ItemWriter,
  rules: NewItemRules,
  drafts: ReadonlyArray<NewItemDraft>,
  bulk = false,
): Promise<ScalarValue[]> {
  const rows = drafts.map((draft) => draft.row);
  const keys = bulk
    ? await writer.insertBulk(rules.collection, rows)
    : await writer.insert(rules.collection, rows);
  const { grants, caller, collection } = rules;
  if (grants === 'all') return keys;
  const stored = keys.length === 0 ? null : await writer.lockRows(collection, keys);
  drafts.forEach((draft, index) => {
    const row = stored?.get(String(keys[index])) ?? draft.row;
    asCaller(caller, () => authorizeCreate(grants, row, draft.payloadFields));
  });
  return keys;
}

/** The ports a creation writes and answers through. */
export type NewItemsWriting = {
  readonly items: ItemStore;
  readonly readBack: ReadBack;
  readonly readRules: ReadRules;
};

/**
 * Checks every draft against the caller's create grants before anything is inserted, then inserts them in
 * one transaction and reads them back under `plan` before it commits; a unique clash is answered as
 * withClashAnswered says. `POST /items` and `POST /files` create through it.
 */
export async function writeNewItems(
  { items, readBack, readRules }: NewItemsWriting,
  rules: NewItemRules,
  plan: ReadBackPlan,
  drafts: ReadonlyArray<NewItemDraft>,
  now: Date,
): Promise<string[] | null> {
  for (const draft of drafts) authorizeNewItem(rules, draft);
  const { caller, collection } = rules;
  return withClashAnswered(
    items,
    () =>
      items.write(
        async (writer) => readBack.read(writer, plan, await insertNewItems(writer, rules, drafts)),
        caller,
      ),
    async () => ({
      caller,
      collection,
      rule: await readRules.optional(caller, collection, now),
      written: drafts.map((draft) => draft.stored.item),
    }),
  );
}
