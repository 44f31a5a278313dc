import type { Accountability } from '../../domain/accountability.ts';
import type { ReadRule } from '../../domain/permissions/read-rule.ts';
import { projectFields } from '../../domain/permissions/readable-fields.ts';
import type { ScalarValue } from '../../domain/query/filter.ts';
import { parseItemQuery, type QueryLimits, type RawItemQuery } from '../../domain/query/parse-item-query.ts';
import type { CollectionSchema, SchemaSnapshot } from '../../domain/schema/collection-schema.ts';
import type { ItemWriter, SelectedField } from '../ports/item-store.ts';
import { parseAsCaller } from './parse-as-caller.ts';
import type { ReadRules } from './read-rules.ts';
import { RelationalRead, selectionOf } from './relational-read.ts';

/** How the written items will be read back; null when the caller may read nothing of the collection. */
export type ReadBackPlan = {
  readonly collection: CollectionSchema;
  readonly rule: ReadRule;
  readonly select: ReadonlyArray<SelectedField>;
} | null;

/**
 * The written items as the caller may read them (docs/api.md §5), in the order written, shaped by `fields`,
 * each as the JSON text the store built (handed on unparsed, as reads are). Planned before the write, so
 * a bad or forbidden `fields` is refused before anything is written; read after it. Null when the caller
 * may read none of them: the write then answers 204 No Content. A write that touched nothing (an update
 * by query matching no row) reads back as an empty list.
 *
 * Read inside the write's transaction, before it commits: an answer whose JSON text would exceed
 * `responseMaxBytes` (a PATCH by query over many large rows) is refused with RESPONSE_TOO_LARGE and the
 * write rolls back, so a refusal never hides a committed write; asking for fewer `fields` (e.g. `id`)
 * lets the same write through. The answer is also exactly what was written, not what a concurrent write
 * made of it after the commit.
 */
export class ReadBack {
  constructor(
    private readonly rules: ReadRules,
    private readonly limits: QueryLimits,
    private readonly responseMaxBytes: number,
  ) {}

  /** `schema`: the snapshot `collection` belongs to, whose relations `fields` may expand. */
  async plan(
    caller: Accountability,
    collection: CollectionSchema,
    query: RawItemQuery,
    now: Date,
    schema?: SchemaSnapshot,
  ): Promise<ReadBackPlan> {
    const parsed = await parseAsCaller(this.rules, caller, now, (witness) =>
      parseItemQuery(selectionOf(query), collection, this.limits, schema, witness),
    );
    // Items are read back by key: a collection without one has nothing to answer with.
    if (collection.primaryKey === null) return null;
    const rule = await this.rules.optional(caller, collection, now);
    if (rule === null) return null;
    const select = parsed.relational
      ? (await RelationalRead.start(this.rules, caller, parsed, now)).select(rule, parsed)
      : projectFields(caller, rule, parsed.fields);
    return { collection, rule, select };
  }

  /** `writer`: the write's own transaction, which has not committed yet. */
  async read(
    writer: ItemWriter,
    plan: ReadBackPlan,
    keys: ReadonlyArray<ScalarValue>,
  ): Promise<string[] | null> {
    if (plan === null) return null;
    if (keys.length === 0) return [];
    const { collection, rule, select } = plan;
    const items = await writer.getMany({
      collection,
      select,
      visible: rule.rows,
      keys,
      maxBytes: this.responseMaxBytes,
    });
    return items.length === 0 ? null : items;
  }
}
