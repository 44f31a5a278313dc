import type { FilterNode } from './filter.ts';
import type { JsonPathSelection } from './json-path.ts';

/** A `fields` entry: a field's name, `'*'`, or a value inside a json field (`json(field, path)`). */
export type SelectedName = string | JsonPathSelection;

export type SortField = { readonly field: string; readonly direction: 'asc' | 'desc' };

/** What the caller asked for (docs/api.md §4), parsed and checked against the collection's schema. */
export type ItemQuery = {
  /**
   * `'*'` for all the caller may read, or the requested names; a list may hold `'*'` beside names
   * (`*,owner`): everything readable, and each name must be readable (docs/api.md §4: asking for a hidden
   * field is refused, even next to `*`); a `json()` entry needs its field readable as the field itself does.
   */
  readonly fields: ReadonlyArray<SelectedName> | '*';
  readonly filter: FilterNode | null;
  readonly sort: ReadonlyArray<SortField>;
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
};
