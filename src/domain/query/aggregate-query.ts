import type { FieldSchema } from '../schema/collection-schema.ts';
import type { FieldType } from '../schema/field-type.ts';
import type { FilterNode } from './filter.ts';

/** Directus's aggregate functions, by the names its `aggregate` parameter uses (docs/api.md §4b). */
export const AGGREGATE_FUNCTIONS = [
  'count',
  'countDistinct',
  'countAll',
  'sum',
  'sumDistinct',
  'avg',
  'avgDistinct',
  'min',
  'max',
] as const;

export type AggregateFunction = (typeof AGGREGATE_FUNCTIONS)[number];

/** Directus's date-part functions for `groupBy` (`year(date_created)`), answered as integers. */
export const DATE_PARTS = ['year', 'month', 'week', 'day', 'weekday', 'hour', 'minute', 'second'] as const;

export type DatePart = (typeof DATE_PARTS)[number];

/** One aggregate asked for; `field` is null for `count` of `*` (rows) and `countAll`. */
export type AggregateTerm = { readonly fn: AggregateFunction; readonly field: string | null };

/**
 * A `groupBy` entry: a field, or a date part of a date/time field. `key` is the name it answers under:
 * the field's own, or Directus's `<field>_<part>` (`date_created_year`).
 */
export type GroupTerm = { readonly field: string; readonly part: DatePart | null; readonly key: string };

/** A sort key of the groups: the `index`-th groupBy entry or aggregate term. */
export type AggregateOrder = {
  readonly target: { readonly kind: 'group' | 'aggregate'; readonly index: number };
  readonly direction: 'asc' | 'desc';
};

/** What `aggregate` / `groupBy` asked for, parsed and checked against the collection (docs/api.md §4b). */
export type AggregateQuery = {
  readonly aggregates: ReadonlyArray<AggregateTerm>;
  readonly groupBy: ReadonlyArray<GroupTerm>;
  /** A total order of the groups: the sort asked for, then every group entry not in it, ascending. */
  readonly sort: ReadonlyArray<AggregateOrder>;
  readonly filter: FilterNode | null;
  readonly search: string | null;
  /** Of groups; null = no limit. */
  readonly limit: number | null;
  readonly offset: number;
};

export const NUMERIC_TYPES: ReadonlySet<FieldType> = new Set(['integer', 'bigInteger', 'float', 'decimal']);

/** The types whose date parts `groupBy` may take: dates have no time of day, times no date. */
export const DATE_PART_TYPES: Readonly<Record<DatePart, ReadonlySet<FieldType>>> = {
  year: new Set(['date', 'timestamp', 'dateTime']),
  month: new Set(['date', 'timestamp', 'dateTime']),
  week: new Set(['date', 'timestamp', 'dateTime']),
  day: new Set(['date', 'timestamp', 'dateTime']),
  weekday: new Set(['date', 'timestamp', 'dateTime']),
  hour: new Set(['time', 'timestamp', 'dateTime']),
  minute: new Set(['time', 'timestamp', 'dateTime']),
  second: new Set(['time', 'timestamp', 'dateTime']),
};

/**
 * The field whose docs/api.md §4 value format an aggregate's result takes: counts are int8; sums of
 * integers and decimals are exact decimals (of the column's scale); sums of floats and every average are
 * doubles; min and max are values of the field itself.
 */
export function aggregateResultField(term: AggregateTerm, field: FieldSchema | null): FieldSchema {
  switch (term.fn) {
    case 'count':
    case 'countDistinct':
    case 'countAll':
      return synthetic(term.fn, 'bigInteger', 'bigint');
    case 'sum':
    case 'sumDistinct':
      if (field?.type === 'float') return synthetic(term.fn, 'float', 'double precision');
      if (field?.type === 'decimal') return field;
      return synthetic(term.fn, 'decimal', 'numeric');
    case 'avg':
    case 'avgDistinct':
      return synthetic(term.fn, 'float', 'double precision');
    case 'min':
    case 'max':
      if (!field) throw new Error(`"${term.fn}" needs a field`);
      return field;
  }
}

/** A date part's value, an integer. */
export const DATE_PART_FIELD: FieldSchema = synthetic('part', 'integer', 'integer');

function synthetic(name: string, type: FieldType, dbType: string): FieldSchema {
  return {
    name,
    type,
    dbType,
    nullable: true,
    defaultValue: null,
    isPrimaryKey: false,
    isUnique: false,
    hasDefault: false,
    maxLength: null,
  };
}

/**
 * The answer's keys in order: the group entries, then each function once, in the order first asked:
 * a function of `*` answers a number under its name, a function of fields an object keyed by field.
 */
export function answerLayout(
  aggregates: ReadonlyArray<AggregateTerm>,
): ReadonlyArray<{ readonly fn: AggregateFunction; readonly terms: ReadonlyArray<number> }> {
  const layout: Array<{ fn: AggregateFunction; terms: number[] }> = [];
  aggregates.forEach((term, index) => {
    const known = layout.find((entry) => entry.fn === term.fn);
    if (known) known.terms.push(index);
    else layout.push({ fn: term.fn, terms: [index] });
  });
  return layout;
}
