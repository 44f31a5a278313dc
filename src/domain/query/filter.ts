import type { RelationalHop } from './relational-hop.ts';

/**
 * The filter language (docs/api.md §4) after parsing: field names checked against the collection, operators
 * known, values coerced to the field's type. Adapters translate this tree and nothing else.
 */
export const COMPARISON_OPERATORS = [
  '_eq',
  '_neq',
  '_lt',
  '_lte',
  '_gt',
  '_gte',
  '_in',
  '_nin',
  '_null',
  '_nnull',
  '_contains',
  '_ncontains',
  '_icontains',
  '_starts_with',
  '_nstarts_with',
  '_ends_with',
  '_nends_with',
  '_between',
  '_nbetween',
  '_empty',
  '_nempty',
  '_intersects',
  '_nintersects',
] as const;

export type ComparisonOperator = (typeof COMPARISON_OPERATORS)[number];

/**
 * Operators without an operand. `_empty` is "null or `''`" on textual fields (string, text) and
 * "null" on every other type; `_nempty` is its exact negation.
 */
export type NullaryOperator = '_null' | '_nnull' | '_empty' | '_nempty';
/** `_intersects`/`_nintersects`: arrays only, "shares at least one element with the list" and its negation. */
export type ListOperator = '_in' | '_nin' | '_intersects' | '_nintersects';
export type RangeOperator = '_between' | '_nbetween';
export type ValueOperator = Exclude<ComparisonOperator, NullaryOperator | ListOperator | RangeOperator>;

/**
 * A value already coerced to its field's type, in a canonical JSON-safe form (see coerce-value.ts):
 * - uuid: lower-case 8-4-4-4-12 hex; string, text: the string as given;
 * - integer, float: number; boolean: boolean;
 * - bigInteger, decimal: string of digits (exact; never a lossy double), without redundant zeros;
 * - timestamp: `YYYY-MM-DDThh:mm:ss[.ffffff]` (no zone); dateTime: `YYYY-MM-DDThh:mm:ss[.ffffff]+00:00`
 *   (converted to UTC); date: `YYYY-MM-DD`; time: `hh:mm:ss[.ffffff]` — fractions without trailing
 *   zeros, so that comparing the texts compares the instants;
 * - json: its JSON text, object keys in jsonb order;
 * - array: the JSON text of its elements' canonical values (`[1,null]`, `["9007199254740993"]`). Array
 *   operands (`_contains`, `_intersects`) are single elements, coerced to the element's type.
 */
export type ScalarValue = string | number | boolean;

/** `$CURRENT_USER`, `$CURRENT_ROLE`, `$NOW` and `$NOW(<offset>)`: resolved per request, then coerced. */
export type DynamicValue = {
  readonly dynamic: 'CURRENT_USER' | 'CURRENT_ROLE' | 'NOW';
  /** For NOW: milliseconds added to the current time (negative for the past). */
  readonly offsetMs?: number;
};

export type OperandValue = ScalarValue | DynamicValue;

/**
 * `V` is what operands may be: a parsed filter may still hold dynamic values (`FilterNode`); a bound one
 * may not (`BoundFilterNode`, from bindDynamicValues), which is what stores and matchesFilter evaluate.
 */
export type Condition<V extends OperandValue = OperandValue> = (
  | {
      readonly kind: 'condition';
      readonly field: string;
      readonly operator: NullaryOperator;
    }
  | {
      readonly kind: 'condition';
      readonly field: string;
      readonly operator: ValueOperator;
      /** Never null: the parser turns `{"_eq": null}` into `_null` and `{"_neq": null}` into `_nnull`. */
      readonly value: V;
    }
  | {
      readonly kind: 'condition';
      readonly field: string;
      readonly operator: ListOperator;
      /** Never empty: an empty `_in`/`_intersects` is parsed as MATCH_NONE, an empty `_nin`/`_nintersects` as `_nnull`. */
      readonly values: ReadonlyArray<V>;
    }
  | {
      readonly kind: 'condition';
      readonly field: string;
      readonly operator: RangeOperator;
      /** Inclusive bounds, in the order given: like SQL BETWEEN, a low bound above the high one matches nothing. */
      readonly values: readonly [V, V];
    }
) & { readonly textOrder?: TextOrder };

/**
 * How `_lt`, `_lte`, `_gt`, `_gte`, `_between` and `_nbetween` order text. Unset, as the database's
 * collation does, which is what a query's filter means (its sort and its cursor follow the collation too).
 * `codePoint`, by code point whatever the collation, as PostgreSQL's "C" collation and matchesFilter do:
 * a permission rule, which is also judged in process (writes, realtime events), must mean one thing
 * (docs/decisions/0063-permission-rules-order-text-by-code-point.md).
 */
export type TextOrder = 'codePoint';

export type FilterNode<V extends OperandValue = OperandValue> =
  | { readonly kind: 'and'; readonly nodes: ReadonlyArray<FilterNode<V>> }
  | { readonly kind: 'or'; readonly nodes: ReadonlyArray<FilterNode<V>> }
  | Condition<V>
  | RelationCondition<V>;

export type BoundFilterNode = FilterNode<ScalarValue>;

/**
 * A condition on related rows (docs/api.md §4, filters across relations). Many-to-one (`quantifier` always
 * `some`): the row this one points at exists and matches `node`; one-to-many: some (`_some`, and the
 * default) or none (`_none`) of the rows pointing at this one match it. `node` is a filter over
 * `hop.collection`. Once the application has bound a query, `node` includes the caller's read rule on
 * that collection, so a row the caller may not read matches nothing: stores only translate.
 */
export type RelationCondition<V extends OperandValue = OperandValue> = {
  readonly kind: 'relation';
  readonly hop: RelationalHop;
  readonly quantifier: 'some' | 'none';
  readonly node: FilterNode<V>;
};

/**
 * A filter that matches every row / no row: the identities of AND and OR. Typed with `never` operands so
 * that they fit every kind of tree.
 */
export const MATCH_ALL: FilterNode<never> = Object.freeze({ kind: 'and', nodes: Object.freeze([]) });
export const MATCH_NONE: FilterNode<never> = Object.freeze({ kind: 'or', nodes: Object.freeze([]) });

export function isDynamicValue(value: OperandValue): value is DynamicValue {
  return typeof value === 'object';
}
