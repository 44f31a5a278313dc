import type { Accountability } from '../../domain/accountability.ts';
import { projectFields } from '../../domain/permissions/readable-fields.ts';
import type { ScalarValue } from '../../domain/query/filter.ts';
import { parseItemQuery, type QueryLimits, type RawItemQuery } from '../../domain/query/parse-item-query.ts';
import type { CollectionSchema } from '../../domain/schema/collection-schema.ts';
import type { ItemStore } from '../ports/item-store.ts';
import type { ReadRules } from './read-rules.ts';

/**
 * The written items as the caller may read them (API.md §5), in the order of `keys`, shaped by `fields`.
 * Null when the caller may read none of them: the write then answers 204 No Content. A write that
 * touched nothing (an update by query matching no row) reads back as an empty list.
 */
export class ReadBack {
  constructor(
    private readonly rules: ReadRules,
    private readonly items: ItemStore,
    private readonly limits: QueryLimits,
  ) {}

  async read(
    caller: Accountability,
    collection: CollectionSchema,
    keys: ReadonlyArray<ScalarValue>,
    query: RawItemQuery,
    now: Date,
  ): Promise<Array<Record<string, unknown>> | null> {
    const pk = collection.primaryKey;
    if (pk === null) return null;
    if (keys.length === 0) return [];
    const rule = await this.rules.optional(caller, collection, now);
    if (rule === null) return null;
    const { fields } = parseItemQuery({ fields: query.fields }, collection, this.limits);
    const select = projectFields(caller, rule, fields);
    // The key is read along, to put the items in the order written, and dropped if not asked for.
    const withKey = select.some((field) => field.field === pk)
      ? select
      : [...select, { field: pk, visibleWhen: null }];
    const result = await this.items.list({
      collection,
      select: withKey,
      visible: rule.rows,
      filter:
        keys.length === 0
          ? { kind: 'or', nodes: [] }
          : { kind: 'condition', field: pk, operator: '_in', values: keys },
      sort: [],
      limit: null,
      offset: 0,
      count: { total: false, filtered: false },
    });
    const byKey = new Map<string, Record<string, unknown>>();
    for (const item of JSON.parse(result.json) as Array<Record<string, unknown>>) {
      byKey.set(String(item[pk]), item);
      if (withKey !== select) delete item[pk];
    }
    const ordered = keys.map((key) => byKey.get(String(key))).filter((item) => item !== undefined);
    return ordered.length === 0 ? null : ordered;
  }
}
