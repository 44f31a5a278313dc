import { z } from 'zod';
import type { FieldMetaClaims } from '../../domain/schema/directus-field-meta.ts';
import { mustBe } from './payload-issue-message.ts';

/*
 * Directus's `meta` on fields and collections, as `@directus/sdk`'s createCollection, createField,
 * updateField and updateCollection send it (docs/api.md §7, docs/decisions/0064). Three kinds of member:
 * - presentation settings only the Data Studio reads (interface, note, icon, sort…): accepted whatever
 *   their value, and not kept — no answer shows them;
 * - what datagate has too (`accountability`, `realtime_watch`): applied;
 * - what Directus's API would do and datagate does not (a singleton, content versions, a field's own
 *   validation, leaving a field out of search): only the value that asks for nothing is accepted, so
 *   nothing asked is silently not done. A field's `special` and `required` depend on the field, and are
 *   judged with it (directus-field-meta.ts).
 * Any other member is refused as unknown, as in every body.
 */

const FIELD_PRESENTATION = [
  'id',
  'collection',
  'field',
  'interface',
  'options',
  'display',
  'display_options',
  'readonly',
  'hidden',
  'sort',
  'width',
  'translations',
  'note',
  'conditions',
  'group',
  'validation_message',
  'system',
] as const;

const COLLECTION_PRESENTATION = [
  'collection',
  'icon',
  'note',
  'display_template',
  'hidden',
  'translations',
  'archive_field',
  'archive_app_filter',
  'archive_value',
  'unarchive_value',
  'sort_field',
  'color',
  'item_duplication_fields',
  'sort',
  'group',
  'collapse',
  'preview_url',
  'system',
  'status',
  'autosave_revision_interval',
] as const;

type Ignored<K extends string> = { [Key in K]: z.ZodOptional<z.ZodUnknown> };

/** Members taken with any value and then dropped. */
function ignored<K extends string>(keys: ReadonlyArray<K>): Ignored<K> {
  const presentation = z.unknown().optional().describe('Presentation only: accepted, not kept.');
  return Object.fromEntries(keys.map((key) => [key, presentation])) as Ignored<K>;
}

/** A `meta` that is no object: said as it may be, an object or null. */
const objectOrNull = {
  error: (issue: Parameters<ReturnType<typeof mustBe>>[0]) =>
    issue.code === 'invalid_type' ? mustBe('a JSON object or null')(issue) : undefined,
};

/** A member whose only accepted value is the one that asks datagate for nothing. */
const onlyNothing = <const V extends boolean | null>(value: V, why: string) =>
  (value === null
    ? z.null({ error: mustBe(`null: ${why}`) })
    : z.literal(value, { error: mustBe(`${value}: ${why}`) })
  )
    .optional()
    .describe(`Only ${value}: ${why}.`);

/** A field's `meta`: the presentation dropped, `special` and `required` handed on to be judged with the field. */
export const fieldMeta = z
  .strictObject(
    {
      ...ignored(FIELD_PRESENTATION),
      special: z
        .array(z.string())
        .nullable()
        .optional()
        .describe(
          'Only what datagate does for the field anyway: `uuid` (a uuid primary key), `date-created`, `user-created`, `date-updated`, `user-updated` (the fields of those names), `cast-boolean`, `cast-json`, `m2o`, `file`.',
        ),
      required: z
        .boolean()
        .optional()
        .describe('`true` only on a NOT NULL column: here a value is required exactly there.'),
      validation: onlyNothing(
        null,
        "datagate checks values with a permission's validation rule, not a field's",
      ),
      searchable: onlyNothing(true, 'search looks in every text field the caller may read'),
    },
    objectOrNull,
  )
  .nullable()
  .optional()
  .transform((meta): FieldMetaClaims | undefined =>
    meta ? { special: meta.special ?? null, required: meta.required ?? false } : undefined,
  )
  .describe("Directus's field settings: presentation accepted and not kept; see docs/api.md §7.");

const accountability = z
  .enum(['all', 'activity'], { error: mustBe('"all", "activity" or null') })
  .nullable()
  .optional()
  .describe('What writes record (docs/api.md §14): `all`, `activity`, or null for nothing.');

const collectionBehaviour = {
  accountability,
  singleton: onlyNothing(false, 'datagate has no singleton collections'),
  versioning: onlyNothing(false, 'datagate keeps no content versions'),
};

/** A new collection's `meta`: `accountability` is set with the table; a new collection is never watched. */
export const newCollectionMeta = z
  .strictObject(
    {
      ...ignored(COLLECTION_PRESENTATION),
      ...collectionBehaviour,
      realtime_watch: onlyNothing(
        false,
        'a new collection is not watched; watch it once it exists (PATCH /collections/:collection)',
      ),
    },
    objectOrNull,
  )
  .nullable()
  .optional()
  .describe("Directus's collection settings: presentation accepted and not kept; see docs/api.md §7.");

/** A collection's `meta` on PATCH: `accountability` and `realtime_watch` change it, presentation does not. */
export const collectionMetaChange = z
  .strictObject(
    {
      ...ignored(COLLECTION_PRESENTATION),
      ...collectionBehaviour,
      realtime_watch: z
        .boolean()
        .optional()
        .describe(
          'Record writes made by hand in SQL as realtime events (true; again to renew a stale watch) or not (false): docs/api.md §12.',
        ),
    },
    objectOrNull,
  )
  .nullable()
  .optional();
