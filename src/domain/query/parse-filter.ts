import type { CollectionSchema, FieldSchema } from '../schema/collection-schema.ts';
import { fieldOf } from '../schema/collection-schema.ts';
import { escapedText, findTextFlaw, jsonMayHoldFlawedText } from '../well-formed-text.ts';
import { coerceValue, operandField } from './coerce-value.ts';
import { allOf } from './combine-filters.ts';
import { parseDynamicValue } from './dynamic-value.ts';
import {
  COMPARISON_OPERATORS,
  type ComparisonOperator,
  type FilterNode,
  MATCH_ALL,
  MATCH_NONE,
  type OperandValue,
} from './filter.ts';
import { hopOf, type RelationalContext } from './hop-of.ts';
import { describeInput, invalidQuery } from './invalid-query.ts';
import { supportsOperator } from './operator-support.ts';
import type { RelationalHop } from './relational-hop.ts';

/** docs/api.md §4a: limits no caller can lift. */
export type FilterLimits = {
  /** The top-level object is depth 1; each `_and`/`_or` level adds one. */
  readonly maxDepth: number;
  /** Field conditions, counting empty groups (`{}`, `[]`) too, so that no input makes unbounded work. */
  readonly maxConditions: number;
};

export const DEFAULT_FILTER_LIMITS: FilterLimits = Object.freeze({ maxDepth: 10, maxConditions: 500 });

const OPERATORS: ReadonlySet<string> = new Set(COMPARISON_OPERATORS);
/** qs turns `a[25]=x` into `{ "25": "x" }` once an index passes its arrayLimit; such objects are lists too. */
const INDEX_KEY = /^(?:0|[1-9]\d{0,5})$/;

/**
 * Parses a Directus-style filter (docs/api.md §4) against a collection: `{ field: { _op: value } }`, several
 * fields or operators in one object meaning AND, `_and`/`_or` taking lists. Accepts the JSON text of
 * `?filter={…}` and the nested object of the bracket form (`?filter[a][_eq]=1`, values as strings).
 * Every refusal is INVALID_QUERY; dynamic values stay unresolved (see bindDynamicValues).
 *
 * With `relations`, a condition may cross relations (docs/api.md §4, filters across relations): on a
 * many-to-one field, operator keys test the column itself and any other key is a filter on the related
 * row (`{"shipment":{"customer":{"name":{"_eq":"ACME"}}}}`); on a one-to-many alias, `_some` / `_none`
 * take a filter on the related rows, and a bare filter means `_some` (as in Directus). Each hop counts one
 * level of `maxDepth`, and a path may take at most `relations.maxHops` hops. Without `relations` every
 * path is an unknown field, as permission rules and write filters need.
 */
export function parseFilter(
  raw: unknown,
  collection: CollectionSchema,
  limits: Partial<FilterLimits> = {},
  relations?: RelationalContext,
): FilterNode {
  const parser = new FilterParser({ ...DEFAULT_FILTER_LIMITS, ...limits }, relations);
  return parser.group(typeof raw === 'string' ? parseJson(raw) : raw, 1, collection, []);
}

function parseJson(text: string): unknown {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw invalidQuery('The filter is not valid JSON.', { reason: 'INVALID_VALUE' });
  }
  // The query string's percent-decoding was checked at the edge; JSON escapes only show once parsed.
  const flawed = jsonMayHoldFlawedText(text) ? findTextFlaw(parsed) : null;
  if (flawed) {
    // Named as the bracket form names the same place: filter[description][_eq].
    const field = `filter${flawed.path.map((segment) => `[${escapedText(String(segment))}]`).join('')}`;
    throw invalidQuery(`${flawed.inKey ? 'The key' : 'The value of'} ${field} contains ${flawed.flaw}.`, {
      field,
      reason: 'INVALID_VALUE',
    });
  }
  return parsed;
}

class FilterParser {
  private conditions = 0;

  constructor(
    private readonly limits: FilterLimits,
    private readonly relations: RelationalContext | undefined,
  ) {}

  /** `hops`: the relations crossed to reach `collection`, by the keys that crossed them. */
  group(raw: unknown, depth: number, collection: CollectionSchema, hops: ReadonlyArray<string>): FilterNode {
    if (depth > this.limits.maxDepth) {
      throw invalidQuery(`The filter is nested deeper than ${this.limits.maxDepth} levels.`, {
        reason: 'MAX_DEPTH',
      });
    }
    if (!isRecord(raw)) {
      throw invalidQuery(`A filter must be a JSON object, not ${describeInput(raw)}.`, {
        reason: 'INVALID_VALUE',
      });
    }
    const keys = Object.keys(raw);
    if (keys.length === 0) {
      this.count();
      return MATCH_ALL;
    }
    const nodes: FilterNode[] = [];
    for (const key of keys) {
      const value = raw[key];
      if (key === '_and' || key === '_or') nodes.push(this.logical(key, value, depth, collection, hops));
      else nodes.push(this.fieldConditions(key, value, depth, collection, hops));
    }
    return allOf(nodes);
  }

  private logical(
    key: '_and' | '_or',
    raw: unknown,
    depth: number,
    collection: CollectionSchema,
    hops: ReadonlyArray<string>,
  ): FilterNode {
    const list = asList(raw);
    if (list === null)
      throw invalidQuery(
        `"${key}" takes a list of filters: {"${key}":[{…},{…}]} in JSON, filter[${key}][0][field][_eq]=… in brackets.`,
        { reason: 'INVALID_VALUE' },
      );
    if (list.length === 0) {
      this.count();
      return key === '_and' ? MATCH_ALL : MATCH_NONE;
    }
    const nodes = list.map((item) => this.group(item, depth + 1, collection, hops));
    return key === '_and' ? allOf(nodes) : { kind: 'or', nodes };
  }

  private fieldConditions(
    name: string,
    raw: unknown,
    depth: number,
    collection: CollectionSchema,
    hops: ReadonlyArray<string>,
  ): FilterNode {
    if (OPERATORS.has(name)) {
      throw invalidQuery(`Operator "${name}" needs a field: { "field": { "${name}": … } }.`, {
        reason: 'INVALID_VALUE',
      });
    }
    const field = fieldOf(collection, name);
    if (field) this.relations?.witness?.named([...hops, name].join('.'), collection, name);
    const hop = this.relations && hopOf(this.relations.schema, collection, name);
    if (hop && isRecord(raw) && Object.keys(raw).length > 0) {
      const crosses = hop.direction === 'one-to-many' || Object.keys(raw).some((key) => !OPERATORS.has(key));
      if (crosses) return this.acrossRelation(hop, field, raw, depth, hops);
    }
    if (!field) {
      throw invalidQuery(`Unknown field ${describeInput(name)} in filter.`, {
        field: name.slice(0, 64),
        reason: 'UNKNOWN_FIELD',
      });
    }
    if (!isRecord(raw) || Object.keys(raw).length === 0) {
      throw invalidQuery(`Field "${name}" needs an operator object, such as { "_eq": … }.`, {
        field: name,
        reason: 'INVALID_VALUE',
      });
    }
    return allOf(Object.keys(raw).map((operator) => this.condition(field, operator, raw[operator])));
  }

  /**
   * A condition on related rows. Many-to-one: operator keys still test the foreign-key column itself;
   * one-to-many: `_some`, `_none`, or a bare filter meaning `_some`.
   */
  private acrossRelation(
    hop: RelationalHop,
    column: FieldSchema | undefined,
    raw: Record<string, unknown>,
    depth: number,
    hops: ReadonlyArray<string>,
  ): FilterNode {
    const maxHops = this.relations?.maxHops ?? 0;
    if (hops.length + 1 > maxHops) {
      throw invalidQuery(`The filter crosses more than ${maxHops} relations in a row.`, {
        field: hop.key,
        reason: 'MAX_DEPTH',
      });
    }
    const through = [...hops, hop.key];
    this.relations?.witness?.crossed(through.join('.'), hop);
    const related = (filter: unknown, quantifier: 'some' | 'none'): FilterNode => ({
      kind: 'relation',
      hop,
      quantifier,
      node: this.group(filter, depth + 1, hop.collection, through),
    });
    const nodes: FilterNode[] = [];
    // Entries, not assignments: a key named `__proto__` must stay a key (and be refused as a field).
    const path: Array<[string, unknown]> = [];
    for (const key of Object.keys(raw)) {
      if (hop.direction === 'one-to-many' && (key === '_some' || key === '_none')) {
        nodes.push(related(raw[key], key === '_some' ? 'some' : 'none'));
      } else if (OPERATORS.has(key)) {
        if (!column) {
          throw invalidQuery(
            `"${hop.key}" is a one-to-many relation: use _some or _none with a filter on its rows.`,
            { field: hop.key, reason: 'UNSUPPORTED_OPERATOR' },
          );
        }
        nodes.push(this.condition(column, key, raw[key]));
      } else {
        path.push([key, raw[key]]);
      }
    }
    if (path.length > 0) nodes.push(related(Object.fromEntries(path), 'some'));
    return allOf(nodes);
  }

  private condition(field: FieldSchema, operatorName: string, raw: unknown): FilterNode {
    if (!OPERATORS.has(operatorName)) {
      throw invalidQuery(`Unknown operator ${describeInput(operatorName)} on field "${field.name}".`, {
        field: field.name,
        reason: 'UNKNOWN_OPERATOR',
      });
    }
    const operator = operatorName as ComparisonOperator;
    this.count();
    // `{"_eq": null}` is a null test, which every type supports.
    const isNullTest = raw === null && (operator === '_eq' || operator === '_neq');
    if (!isNullTest && !supportsOperator(field.type, operator)) {
      throw invalidQuery(`Operator "${operator}" cannot be used on field "${field.name}" (${field.type}).`, {
        field: field.name,
        reason: 'UNSUPPORTED_OPERATOR',
      });
    }
    return this.conditionNode(field, operator, raw);
  }

  private conditionNode(field: FieldSchema, operator: ComparisonOperator, raw: unknown): FilterNode {
    const base = { kind: 'condition', field: field.name } as const;
    switch (operator) {
      case '_null':
      case '_nnull':
      case '_empty':
      case '_nempty': {
        const flag = booleanFlag(field, operator, raw);
        return { ...base, operator: flag ? operator : NEGATION[operator] };
      }
      case '_in':
      case '_nin':
      case '_intersects':
      case '_nintersects': {
        const values = this.list(field, operator, raw);
        // No SQL spelling needed for an empty list: `_in []` matches no row, and `_nin []` every row but
        // those with null — a null field matches no negation (docs/api.md §4). Likewise for arrays.
        if (values.length === 0) {
          return operator === '_in' || operator === '_intersects'
            ? MATCH_NONE
            : { ...base, operator: '_nnull' };
        }
        return { ...base, operator, values };
      }
      case '_between':
      case '_nbetween': {
        const values = this.list(field, operator, raw);
        if (values.length !== 2) {
          throw invalidQuery(`"${operator}" on field "${field.name}" takes exactly two values.`, {
            field: field.name,
            reason: 'INVALID_VALUE',
          });
        }
        return { ...base, operator, values: [values[0]!, values[1]!] };
      }
      default:
        if (raw === null && (operator === '_eq' || operator === '_neq')) {
          return { ...base, operator: operator === '_eq' ? '_null' : '_nnull' };
        }
        return { ...base, operator, value: operand(field, operator, raw) };
    }
  }

  /**
   * A list operand: a JSON array, or a comma-separated string from the bracket form (`_in=a,b`; the
   * empty string is the empty list). Values containing commas need the array form.
   */
  private list(field: FieldSchema, operator: ComparisonOperator, raw: unknown): OperandValue[] {
    const items = typeof raw === 'string' ? (raw === '' ? [] : raw.split(',')) : asList(raw);
    if (items === null) {
      throw invalidQuery(`"${operator}" on field "${field.name}" takes a list of values.`, {
        field: field.name,
        reason: 'INVALID_VALUE',
      });
    }
    return items.map((item) => operand(field, operator, item));
  }

  private count() {
    this.conditions += 1;
    if (this.conditions > this.limits.maxConditions) {
      throw invalidQuery(`The filter has more than ${this.limits.maxConditions} conditions.`, {
        reason: 'MAX_CONDITIONS',
      });
    }
  }
}

const NEGATION = { _null: '_nnull', _nnull: '_null', _empty: '_nempty', _nempty: '_empty' } as const;

/** `_null: true` is `_null`, `_null: false` is `_nnull` (the bracket form sends "true"/"false"). */
function booleanFlag(field: FieldSchema, operator: string, raw: unknown): boolean {
  if (raw === true || raw === 'true') return true;
  if (raw === false || raw === 'false') return false;
  throw invalidQuery(`"${operator}" on field "${field.name}" takes true or false.`, {
    field: field.name,
    reason: 'INVALID_VALUE',
  });
}

/**
 * One operand: a dynamic value (bound per request, so not type-checked here) or a value of the field's
 * type — of its element's type on arrays.
 */
function operand(field: FieldSchema, operator: ComparisonOperator, raw: unknown): OperandValue {
  if (raw === null) {
    throw invalidQuery(`"${operator}" on field "${field.name}" does not take null; use _null or _nnull.`, {
      field: field.name,
      reason: 'INVALID_VALUE',
    });
  }
  if (typeof raw === 'string') {
    const dynamic = parseDynamicValue(raw);
    if (dynamic) return dynamic;
  }
  try {
    return coerceValue(operandField(field, operator), raw);
  } catch (error) {
    if (typeof raw === 'string' && NULL_TEXT.test(raw)) throw nullAsText(field, raw);
    throw error;
  }
}

/**
 * Directus reads the text `null` as null in any filter; here it stays text (docs/api.md §4, "Values";
 * docs/decisions/0058), so a caller who meant null is told the way to say it.
 */
const NULL_TEXT = /^null$/i;

function nullAsText(field: FieldSchema, raw: string) {
  return invalidQuery(
    `Invalid value "${raw}" for field "${field.name}" (${field.type}): the text "${raw}" is no null; ` +
      `test for null with _null or _nnull (filter[${field.name}][_null]=true).`,
    { field: field.name, reason: 'INVALID_VALUE' },
  );
}

function isRecord(raw: unknown): raw is Record<string, unknown> {
  return typeof raw === 'object' && raw !== null && !Array.isArray(raw);
}

function asList(raw: unknown): ReadonlyArray<unknown> | null {
  if (Array.isArray(raw)) return raw;
  if (!isRecord(raw)) return null;
  const keys = Object.keys(raw);
  if (keys.length === 0 || !keys.every((key) => INDEX_KEY.test(key))) return null;
  return keys.sort((a, b) => Number(a) - Number(b)).map((key) => raw[key]);
}
