import type { FilterNode } from './filter.ts';
import type { JsonPathSelection } from './json-path.ts';
import type { RelationalHop } from './relational-hop.ts';

/** A `fields` entry: a field's name, `'*'`, or a value inside a json field (`json(field, path)`). */
export type SelectedName = string | JsonPathSelection;

export type SortField = { readonly field: string; readonly direction: 'asc' | 'desc' };

/**
 * A `sort` entry. With `hops` (`sort=shipment.customer.name`), `field` belongs to the collection the last
 * of these many-to-one hops arrives at; without, to the collection read.
 */
export type QuerySortField = SortField & { readonly hops?: ReadonlyArray<RelationalHop> };

/** What `fields` asks of one collection: its own fields, and the relations it expands. */
export type FieldSelection = {
  /**
   * `'*'` for all the caller may read, or the requested names in answer order; a list may hold `'*'`
   * beside names (`*,owner`): everything readable, and each name must be readable (docs/api.md §4: asking
   * for a hidden field is refused, even next to `*`); a `json()` entry needs its field readable as the
   * field itself does. A relation expanded below is named here too, where it was first asked for.
   */
  readonly fields: ReadonlyArray<SelectedName> | '*';
  /**
   * The relations expanded (`shipment.number`, `cargos.*`, `*.*`), by the name the query used (the
   * foreign-key field, or the one-to-many alias); absent when none.
   */
  readonly relations?: ReadonlyMap<string, NestedSelection>;
};

/** A relation expanded by `fields`, and what to read of the rows at its other end. */
export type NestedSelection = FieldSelection & {
  readonly hop: RelationalHop;
  /** Reached only through a wildcard (`*.*`): left out silently where the caller may not read it. */
  readonly implicit: boolean;
  /**
   * Named by a `deep` entry: refused where the caller may not read it, as when `fields` names it, even
   * under a wildcard — whatever the entry holds, since an entry that does not parse there is refused.
   */
  readonly namedByDeep: boolean;
  /** One-to-many named alone (`fields=cargos`): the related rows' primary keys, not objects. */
  readonly keysOnly: boolean;
  /** One-to-many only: which related rows, in which order (`deep`, else a list's defaults). */
  readonly page?: NestedPage;
};

/** `deep[<relation>]`'s `_filter`, `_sort`, `_limit` and `_offset`, with a list's defaults. */
export type NestedPage = {
  readonly filter: FilterNode | null;
  readonly sort: ReadonlyArray<QuerySortField>;
  /** null = no limit (only when `query.limitMax` is -1). */
  readonly limit: number | null;
  readonly offset: number;
};

/** What the caller asked for (docs/api.md §4), parsed and checked against the collection's schema. */
export type ItemQuery = FieldSelection & {
  readonly filter: FilterNode | null;
  readonly sort: ReadonlyArray<QuerySortField>;
  /** null = no limit (only when `query.limitMax` is -1). */
  readonly limit: number | null;
  readonly offset: number;
  /** `after`: the opaque cursor of the page before (never together with offset or page). */
  readonly after: string | null;
  readonly search: string | null;
  readonly meta: {
    readonly totalCount: boolean;
    readonly filterCount: boolean;
    /** The planner's estimates instead of exact counts (docs/api.md §4, `meta`). */
    readonly estimatedTotalCount: boolean;
    readonly estimatedFilterCount: boolean;
    /** A cursor for the page after this one. */
    readonly next: boolean;
  };
  /**
   * Whether anything in the query crosses a relation (fields, filter or sort): absent on the flat path,
   * which then needs no other collection's rule.
   */
  readonly relational?: true;
};
