import type { Accountability } from '../../domain/accountability.ts';
import type { ReadRule } from '../../domain/permissions/read-rule.ts';
import { projectFields } from '../../domain/permissions/readable-fields.ts';
import type { ScalarValue } from '../../domain/query/filter.ts';
import { parseItemQuery, type QueryLimits, type RawItemQuery } from '../../domain/query/parse-item-query.ts';
import type { CollectionSchema } from '../../domain/schema/collection-schema.ts';
import type { ItemStore, SelectedField } from '../ports/item-store.ts';
import type { ReadRules } from './read-rules.ts';

/** How the written items will be read back; null when the caller may read nothing of the collection. */
export type ReadBackPlan = {
  readonly collection: CollectionSchema;
  readonly key: string;
  readonly rule: ReadRule;
  readonly select: ReadonlyArray<SelectedField>;
} | null;

/**
 * The written items as the caller may read them (API.md §5), in the order written, shaped by `fields`.
 * Planned before the write, so a bad or forbidden `fields` is refused before anything is written; read
 * after it. Null when the caller may read none of them: the write then answers 204 No Content. A write
 * that touched nothing (an update by query matching no row) reads back as an empty list.
 */
export class ReadBack {
  constructor(
    private readonly rules: ReadRules,
    private readonly items: ItemStore,
    private readonly limits: QueryLimits,
  ) {}

  async plan(
    caller: Accountability,
    collection: CollectionSchema,
    query: RawItemQuery,
    now: Date,
  ): Promise<ReadBackPlan> {
    const { fields } = parseItemQuery({ fields: query.fields }, collection, this.limits);
    const key = collection.primaryKey;
    const rule = key === null ? null : await this.rules.optional(caller, collection, now);
    if (key === null || rule === null) return null;
    return { collection, key, rule, select: projectFields(caller, rule, fields) };
  }

  async read(
    plan: ReadBackPlan,
    keys: ReadonlyArray<ScalarValue>,
  ): Promise<Array<Record<string, unknown>> | null> {
    if (plan === null) return null;
    if (keys.length === 0) return [];
    const { collection, key, rule, select } = plan;
    // The key is read along, to put the items in the order written, and dropped if not asked for.
    const withKey = select.some((field) => field.field === key)
      ? select
      : [...select, { field: key, visibleWhen: null }];
    const result = await this.items.list({
      collection,
      select: withKey,
      visible: rule.rows,
      filter: { kind: 'condition', field: key, operator: '_in', values: keys },
      sort: [],
      limit: null,
      offset: 0,
      count: { total: false, filtered: false },
    });
    const byKey = new Map<string, Record<string, unknown>>();
    for (const item of JSON.parse(result.json) as Array<Record<string, unknown>>) {
      byKey.set(String(item[key]), item);
      if (withKey !== select) delete item[key];
    }
    const ordered = keys.map((value) => byKey.get(String(value))).filter((item) => item !== undefined);
    return ordered.length === 0 ? null : ordered;
  }
}
