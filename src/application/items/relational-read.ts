import type { Accountability } from '../../domain/accountability.ts';
import { fieldsNamedBy, relationsNamedBy } from '../../domain/permissions/filter-fields.ts';
import type { ReadRule } from '../../domain/permissions/read-rule.ts';
import { allowedFields, isQueryable } from '../../domain/permissions/readable-fields.ts';
import { refusal } from '../../domain/permissions/refusal.ts';
import { bindDynamicValues, type DynamicContext } from '../../domain/query/bind-dynamic-values.ts';
import { allOf } from '../../domain/query/combine-filters.ts';
import type { BoundFilterNode, FilterNode } from '../../domain/query/filter.ts';
import type { FieldSelection, NestedSelection, QuerySortField } from '../../domain/query/item-query.ts';
import { refuseOneRecordParameters } from '../../domain/query/one-record-parameters.ts';
import type { RawItemQuery } from '../../domain/query/parse-item-query.ts';
import type { CollectionSchema } from '../../domain/schema/collection-schema.ts';
import type { NestedRead, SelectedField, SortKey } from '../ports/item-store.ts';
import type { ReadRules } from './read-rules.ts';

/** The parts of a parsed query that may cross relations. */
export type RelationalQuery = FieldSelection & {
  readonly filter?: FilterNode | null;
  readonly sort?: ReadonlyArray<QuerySortField>;
};

/**
 * A query across relations turned into what the store executes, with the caller's own rules at every hop
 * (docs/api.md §4, permissions at every hop):
 * - a related collection is read with the caller's rule for it: its rows (`NestedRead.visible`) and its
 *   fields (`*` narrows silently, a hidden field named is refused);
 * - a relation the caller may not read at all is refused (403 naming its path) when named (in `fields` or
 *   by a `deep` entry), and left out silently when only a wildcard reached it — a many-to-one then reads
 *   as its foreign key's value;
 * - a one-to-many relation, read or filtered, needs the child's foreign key queryable in the child's rule,
 *   or the answer would tell which parent a hidden child belongs to;
 * - filters and sorts name only queryable fields at every hop, and each hop's row rule is ANDed into the
 *   relation condition, so a hidden related row neither matches (`_some`) nor blocks (`_none`).
 *
 * Built per request, once every rule the query needs is fetched (`RelationalRead.start`): the checks and
 * the translation then run without I/O.
 */
export class RelationalRead {
  private constructor(
    private readonly caller: Accountability,
    private readonly rules: ReadonlyMap<string, ReadRule | null>,
    private readonly context: DynamicContext,
  ) {}

  /** Fetches the caller's rule on every collection the query reaches, at once. */
  static async start(
    readRules: ReadRules,
    caller: Accountability,
    query: RelationalQuery,
    now: Date,
  ): Promise<RelationalRead> {
    const reached = new Map<string, CollectionSchema>();
    collectionsReached(query, reached);
    const collections = [...reached.values()];
    const found = await Promise.all(
      collections.map((collection) => readRules.optional(caller, collection, now)),
    );
    const rules = new Map(collections.map((collection, index) => [collection.name, found[index] ?? null]));
    return new RelationalRead(caller, rules, { user: caller.user, role: caller.role, now });
  }

  /** The fields to return from a collection read with `rule`; `path` names the relations that led here. */
  select(rule: ReadRule, selection: FieldSelection, path = ''): ReadonlyArray<SelectedField> {
    const relations = selection.relations ?? NO_RELATIONS;
    const selected: SelectedField[] = [];
    const answered = new Set<string>();
    const column = (field: string) => {
      if (answered.has(field)) return;
      answered.add(field);
      const branch = relations.get(field);
      const nested = branch && this.nested(branch, path);
      const visibleWhen = rule.fields.get(field) ?? null;
      selected.push(nested ? { field, visibleWhen, nested } : { field, visibleWhen });
    };
    const alias = (key: string, branch: NestedSelection) => {
      if (answered.has(key)) return;
      answered.add(key);
      const nested = this.nested(branch, path);
      if (nested) selected.push({ field: key, visibleWhen: null, nested });
    };
    for (const entry of selection.fields === '*' ? ['*'] : selection.fields) {
      if (entry === '*') {
        for (const field of allowedFields(rule)) column(field);
        for (const [key, branch] of relations) {
          if (branch.implicit && branch.hop.direction === 'one-to-many') alias(key, branch);
        }
      } else if (typeof entry !== 'string') {
        if (!rule.fields.has(entry.field)) throw refusal(this.caller, pathTo(path, entry.field));
        selected.push({
          field: entry.field,
          visibleWhen: rule.fields.get(entry.field) ?? null,
          json: { path: entry.path, key: entry.key },
        });
      } else {
        const branch = relations.get(entry);
        if (branch?.hop.direction === 'one-to-many') alias(entry, branch);
        else if (!rule.fields.has(entry)) throw refusal(this.caller, pathTo(path, entry));
        else column(entry);
      }
    }
    return selected;
  }

  /**
   * A filter on a collection read with `rule`, checked at every hop, bound, and with each hop's row rule
   * ANDed into its relation condition.
   */
  filter(rule: ReadRule, collection: CollectionSchema, filter: FilterNode, path = ''): BoundFilterNode {
    this.assertQueryable(rule, filter, path);
    return this.withHopRules(bindDynamicValues(filter, this.context, collection));
  }

  /** Sort keys, each hop carrying the caller's row rule there (a hidden related row sorts as null). */
  sort(rule: ReadRule, sort: ReadonlyArray<QuerySortField>, path = ''): ReadonlyArray<SortKey> {
    return sort.map(({ field, direction, hops }) => {
      let current = rule;
      let at = path;
      const through: Array<{
        hop: NonNullable<QuerySortField['hops']>[number];
        visible: BoundFilterNode | null;
      }> = [];
      for (const hop of hops ?? []) {
        this.assertQueryableField(current, at, hop.key);
        at = pathTo(at, hop.key);
        const next = this.rules.get(hop.collection.name);
        if (!next) throw refusal(this.caller, at);
        through.push({ hop, visible: next.rows });
        current = next;
      }
      this.assertQueryableField(current, at, field);
      return through.length === 0 ? { field, direction } : { field, direction, through };
    });
  }

  /** The read of a relation's rows, or null when a wildcard reached a relation the caller may not read. */
  private nested(branch: NestedSelection, path: string): NestedRead | null {
    const { hop } = branch;
    const at = pathTo(path, hop.key);
    const rule = this.rules.get(hop.collection.name) ?? null;
    const readable =
      rule !== null &&
      (hop.direction === 'many-to-one' ||
        (isQueryable(rule, hop.relation.field) &&
          (!branch.keysOnly || isQueryable(rule, hop.collection.primaryKey ?? ''))));
    if (!readable) {
      if (branch.implicit && !branch.namedByDeep) return null;
      throw refusal(this.caller, at);
    }
    const select = branch.keysOnly ? [] : this.select(rule, branch, at);
    if (hop.direction === 'many-to-one' || !branch.page) return { hop, select, visible: rule.rows };
    const { filter, sort, limit, offset } = branch.page;
    return {
      hop,
      select,
      visible: rule.rows,
      filter: filter === null ? null : this.filter(rule, hop.collection, filter, at),
      sort: this.sort(rule, sort, at),
      limit,
      offset,
      ...(branch.keysOnly ? { keysOnly: true } : {}),
    };
  }

  private assertQueryable(rule: ReadRule, filter: FilterNode, path: string) {
    for (const field of fieldsNamedBy(filter)) this.assertQueryableField(rule, path, field);
    for (const condition of relationsNamedBy(filter)) {
      const { hop } = condition;
      const at = pathTo(path, hop.key);
      const related = this.rules.get(hop.collection.name);
      if (!related) throw refusal(this.caller, at);
      if (hop.direction === 'one-to-many' && !isQueryable(related, hop.relation.field)) {
        throw refusal(this.caller, at);
      }
      this.assertQueryable(related, condition.node, at);
    }
  }

  private assertQueryableField(rule: ReadRule, path: string, field: string) {
    if (!isQueryable(rule, field)) throw refusal(this.caller, pathTo(path, field));
  }

  private withHopRules(node: BoundFilterNode): BoundFilterNode {
    switch (node.kind) {
      case 'condition':
        return node;
      case 'relation': {
        const rows = this.rules.get(node.hop.collection.name)?.rows ?? null;
        const inner = this.withHopRules(node.node);
        return { ...node, node: rows === null ? inner : allOf([rows, inner]) };
      }
      default:
        return { kind: node.kind, nodes: node.nodes.map((child) => this.withHopRules(child)) };
    }
  }
}

/**
 * The parameters of a query that shape one item (`fields`, and `deep` for the relations it expands):
 * what a read by key or a write's read-back takes of its query string, once the list parameters that would
 * change its answer are refused.
 */
export function selectionOf(query: RawItemQuery): RawItemQuery {
  refuseOneRecordParameters(query);
  const deep = Object.hasOwn(query, 'deep') ? query.deep : undefined;
  return deep === undefined ? { fields: query.fields } : { fields: query.fields, deep };
}

const NO_RELATIONS: ReadonlyMap<string, NestedSelection> = new Map();

function pathTo(path: string, name: string): string {
  return path === '' ? name : `${path}.${name}`;
}

function collectionsReached(query: RelationalQuery, reached: Map<string, CollectionSchema>) {
  for (const branch of query.relations?.values() ?? []) {
    reached.set(branch.hop.collection.name, branch.hop.collection);
    collectionsReached({ ...branch, filter: branch.page?.filter, sort: branch.page?.sort }, reached);
  }
  if (query.filter) filterCollections(query.filter, reached);
  for (const { hops } of query.sort ?? []) {
    for (const hop of hops ?? []) reached.set(hop.collection.name, hop.collection);
  }
}

function filterCollections(filter: FilterNode, reached: Map<string, CollectionSchema>) {
  if (filter.kind === 'condition') return;
  if (filter.kind === 'relation') {
    reached.set(filter.hop.collection.name, filter.hop.collection);
    filterCollections(filter.node, reached);
    return;
  }
  for (const node of filter.nodes) filterCollections(node, reached);
}
