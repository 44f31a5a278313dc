import { type RawBuilder, sql } from 'kysely';
import type {
  BoundFilterNode,
  Condition,
  RelationCondition,
  ScalarValue,
} from '../../../domain/query/filter.ts';
import {
  type CollectionSchema,
  elementField,
  type FieldSchema,
  fieldOf,
} from '../../../domain/schema/collection-schema.ts';
import { TEXTUAL_TYPES } from '../../../domain/schema/field-type.ts';
import { parameterTypeOf } from './column-types.ts';
import { hopShape, hopSource } from './relational-hop-sql.ts';
import { columnOf, type RowScope, relatedScope } from './row-scope.ts';

/**
 * A bound filter as a SQL boolean expression over the columns of the scope's row (row-scope.ts), conditions
 * across relations as `exists` subqueries correlated with it. Every identifier goes through `sql.id`, every value is a
 * bound parameter cast to its field's type, so no caller text ever becomes SQL.
 *
 * Null semantics are SQL's, which is what docs/api.md §4 asks for: a null column makes `=`, `<>`, `like`,
 * `between` and their negations unknown, so it matches nothing but `_null` and `_empty`.
 */
export function filterSql(
  node: BoundFilterNode,
  collection: CollectionSchema,
  scope: RowScope,
): RawBuilder<boolean> {
  switch (node.kind) {
    case 'and':
      // The identities: an empty AND matches everything, an empty OR nothing.
      return node.nodes.length === 0 ? sql`true` : junction(node.nodes, collection, scope, sql` and `);
    case 'or':
      return node.nodes.length === 0 ? sql`false` : junction(node.nodes, collection, scope, sql` or `);
    case 'condition':
      return conditionSql(node, fieldOrThrow(collection, node.field), scope);
    case 'relation':
      return relationSql(node, scope);
  }
}

function junction(
  nodes: ReadonlyArray<BoundFilterNode>,
  collection: CollectionSchema,
  scope: RowScope,
  separator: RawBuilder<unknown>,
): RawBuilder<boolean> {
  return sql`(${sql.join(
    nodes.map((node) => filterSql(node, collection, scope)),
    separator,
  )})`;
}

/**
 * Some (`exists`) or none (`not exists`) of the related rows match the node, which already holds the
 * caller's read rule on them: a row the caller may not read neither matches nor blocks.
 */
function relationSql(node: RelationCondition<ScalarValue>, scope: RowScope): RawBuilder<boolean> {
  const inner = relatedScope(scope);
  const related = sql<boolean>`exists (select 1 ${hopSource(node.hop, scope, inner)}
    and ${filterSql(node.node, node.hop.collection, inner)})`;
  return node.quantifier === 'none' ? sql<boolean>`not ${related}` : related;
}

/** The application checks every field against the schema; one that slipped through is a bug, not a 400. */
export function fieldOrThrow(collection: CollectionSchema, name: string): FieldSchema {
  const field = fieldOf(collection, name);
  if (!field) throw new Error(`Field "${name}" is not in collection "${collection.name}"`);
  return field;
}

function conditionSql(
  condition: Condition<ScalarValue>,
  field: FieldSchema,
  scope: RowScope,
): RawBuilder<boolean> {
  if (field.type === 'array') return arrayConditionSql(condition, field, scope);
  const column = ordered(comparable(field, scope), field, condition);
  switch (condition.operator) {
    case '_null':
      return sql`${column} is null`;
    case '_nnull':
      return sql`${column} is not null`;
    case '_empty':
      return TEXTUAL_TYPES.has(field.type)
        ? sql`(${column} is null or ${column} = '')`
        : sql`${column} is null`;
    case '_nempty':
      return TEXTUAL_TYPES.has(field.type)
        ? sql`(${column} is not null and ${column} <> '')`
        : sql`${column} is not null`;
    case '_eq':
      return sql`${column} = ${parameter(field, condition.value)}`;
    case '_neq':
      return sql`${column} <> ${parameter(field, condition.value)}`;
    case '_lt':
      return sql`${column} < ${parameter(field, condition.value)}`;
    case '_lte':
      return sql`${column} <= ${parameter(field, condition.value)}`;
    case '_gt':
      return sql`${column} > ${parameter(field, condition.value)}`;
    case '_gte':
      return sql`${column} >= ${parameter(field, condition.value)}`;
    case '_in':
      // `= any('{}')` is false already; spelled out so the statement does not depend on it.
      return condition.values.length === 0
        ? sql`false`
        : sql`${column} = any (${arrayParameter(field, condition.values)})`;
    case '_nin':
      // `<> all('{}')` is true even for null, and a null must not match a negation.
      return condition.values.length === 0
        ? sql`${column} is not null`
        : sql`${column} <> all (${arrayParameter(field, condition.values)})`;
    case '_between':
      return sql`${column} between ${parameter(field, condition.values[0])} and ${parameter(field, condition.values[1])}`;
    case '_nbetween':
      return sql`not (${column} between ${parameter(field, condition.values[0])} and ${parameter(field, condition.values[1])})`;
    case '_contains':
      return like(column, 'like', `%${escapeLike(condition.value)}%`);
    case '_ncontains':
      return like(column, 'not like', `%${escapeLike(condition.value)}%`);
    case '_icontains':
      return like(column, 'ilike', `%${escapeLike(condition.value)}%`);
    case '_starts_with':
      return like(column, 'like', `${escapeLike(condition.value)}%`);
    case '_nstarts_with':
      return like(column, 'not like', `${escapeLike(condition.value)}%`);
    case '_ends_with':
      return like(column, 'like', `%${escapeLike(condition.value)}`);
    case '_nends_with':
      return like(column, 'not like', `%${escapeLike(condition.value)}`);
    case '_intersects':
    case '_nintersects':
      throw new Error(`Operator "${condition.operator}" applies to arrays only`);
  }
}

/**
 * Arrays (operator-support.ts): `@>` and `&&` over the column cast to an array of its elements' parameter
 * type, which compare elements with the element type's equality and skip null elements, as
 * matchesFilter does. An empty array is `_empty`.
 */
function arrayConditionSql(
  condition: Condition<ScalarValue>,
  field: FieldSchema,
  scope: RowScope,
): RawBuilder<boolean> {
  const column = columnOf(scope, field.name);
  const elements = comparable(field, scope);
  const element = elementField(field);
  switch (condition.operator) {
    case '_null':
      return sql`${column} is null`;
    case '_nnull':
      return sql`${column} is not null`;
    case '_empty':
      return sql`(${column} is null or cardinality(${column}) = 0)`;
    case '_nempty':
      return sql`(${column} is not null and cardinality(${column}) > 0)`;
    case '_contains':
      return sql`${elements} @> array[${parameter(element, condition.value)}]`;
    case '_ncontains':
      return sql`not (${elements} @> array[${parameter(element, condition.value)}])`;
    case '_intersects':
      return sql`${elements} && ${arrayParameter(element, condition.values)}`;
    case '_nintersects':
      return sql`not (${elements} && ${arrayParameter(element, condition.values)})`;
    default:
      throw new Error(`Operator "${condition.operator}" does not apply to arrays`);
  }
}

/**
 * The column as comparisons and sorting see it: json has no operators of its own, jsonb has; an enum
 * compares as its label's text (its operands are text, and its order would otherwise be declaration
 * order, which the in-memory twin does not model); an array as an array of its elements' parameter type.
 */
export function comparable(field: FieldSchema, scope: RowScope): RawBuilder<unknown> {
  const column = columnOf(scope, field.name);
  if (field.type === 'json') return sql`${column}::jsonb`;
  if (field.choices !== undefined) return sql`${column}::text`;
  if (field.type === 'array') return sql`${column}::${sql.raw(parameterTypeOf(elementField(field)))}[]`;
  return column;
}

/**
 * A permission rule's text compares by code point (filter.ts, `TextOrder`): as matchesFilter judges it in
 * process, whatever the collation of the column. Equality and LIKE need no collation of their own: under a
 * deterministic collation they compare the bytes already.
 */
function ordered(
  column: RawBuilder<unknown>,
  field: FieldSchema,
  condition: Condition<ScalarValue>,
): RawBuilder<unknown> {
  const text = TEXTUAL_TYPES.has(field.type) || field.choices !== undefined;
  return condition.textOrder === 'codePoint' && text ? sql`${column} collate "C"` : column;
}

function parameter(field: FieldSchema, value: ScalarValue): RawBuilder<unknown> {
  return sql`${value}::${sql.raw(parameterTypeOf(field))}`;
}

function arrayParameter(field: FieldSchema, values: ReadonlyArray<ScalarValue>): RawBuilder<unknown> {
  return sql`${[...values]}::${sql.raw(parameterTypeOf(field))}[]`;
}

type LikeOperator = 'like' | 'not like' | 'ilike';

/** Substring operators (textual fields only, operator-support.ts): `%`, `_` and `\` in the value are literal. */
function like(column: RawBuilder<unknown>, operator: LikeOperator, pattern: string): RawBuilder<boolean> {
  return sql`${column} ${sql.raw(operator)} ${pattern}::text escape '\\'`;
}

/**
 * What `filterSql` makes of `node` apart from its values, appended to `key` (operators, fields, and whatever
 * else changes the statement's text, such as an empty list), and the parameters it binds, appended to
 * `values` in the order `filterSql` binds them. Two nodes with the same key compile to the same SQL text, so
 * that text is compiled once and only these values are bound per request (compiled-shape.ts). Kept beside
 * `conditionSql`: a change to one is a change to the other, and compiling a shape checks they agree.
 */
export function filterShape(node: BoundFilterNode, key: string[], values: unknown[]): void {
  switch (node.kind) {
    case 'and':
    case 'or':
      key.push(node.kind, String(node.nodes.length), '(');
      for (const child of node.nodes) filterShape(child, key, values);
      key.push(')');
      return;
    case 'condition':
      key.push(String(node.field.length), node.field, node.operator);
      conditionValues(node, key, values);
      return;
    case 'relation':
      key.push('relation', node.quantifier);
      hopShape(node.hop, key);
      filterShape(node.node, key, values);
  }
}

function conditionValues(condition: Condition<ScalarValue>, key: string[], values: unknown[]): void {
  switch (condition.operator) {
    case '_null':
    case '_nnull':
    case '_empty':
    case '_nempty':
      return;
    case '_eq':
    case '_neq':
    case '_lt':
    case '_lte':
    case '_gt':
    case '_gte':
      values.push(condition.value);
      return;
    case '_in':
    case '_nin':
      if (condition.values.length === 0) key.push('empty');
      else values.push([...condition.values]);
      return;
    case '_between':
    case '_nbetween':
      values.push(condition.values[0], condition.values[1]);
      return;
    case '_contains':
    case '_ncontains':
    case '_icontains':
      values.push(`%${escapeLike(condition.value)}%`);
      return;
    case '_starts_with':
    case '_nstarts_with':
      values.push(`${escapeLike(condition.value)}%`);
      return;
    case '_ends_with':
    case '_nends_with':
      values.push(`%${escapeLike(condition.value)}`);
  }
}

function escapeLike(value: ScalarValue): string {
  return String(value).replace(/[\\%_]/g, (char) => `\\${char}`);
}

/** `where a and b` over the present filters, or nothing. */
export function conjunction(
  filters: ReadonlyArray<BoundFilterNode | null>,
  collection: CollectionSchema,
  scope: RowScope,
): RawBuilder<unknown> {
  const present = filters.filter((filter) => filter !== null);
  if (present.length === 0) return sql``;
  return sql`where ${sql.join(
    present.map((filter) => filterSql(filter, collection, scope)),
    sql` and `,
  )}`;
}
