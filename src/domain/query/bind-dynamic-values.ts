import { DomainError } from '../errors.ts';
import type { CollectionSchema, FieldSchema } from '../schema/collection-schema.ts';
import { fieldOf } from '../schema/collection-schema.ts';
import { coerceValue, operandField } from './coerce-value.ts';
import { allOf, anyOf } from './combine-filters.ts';
import {
  type BoundFilterNode,
  type DynamicValue,
  type FilterNode,
  isDynamicValue,
  MATCH_NONE,
  type OperandValue,
  type ScalarValue,
} from './filter.ts';
import { localDate, localTime, localTimestamp } from './temporal-text.ts';

/** Who is asking and when: what `$CURRENT_USER`, `$CURRENT_ROLE` and `$NOW` stand for in this request. */
export type DynamicContext = {
  readonly user: string | null;
  readonly role: string | null;
  readonly now: Date;
};

/**
 * Replaces every dynamic value by its value for this request, coerced to the field's type.
 *
 * A dynamic value that cannot be bound — null (the public caller's `$CURRENT_USER`) or unfit for the
 * field (`$CURRENT_USER` on an integer, `$NOW` on a boolean) — never throws: permissions are written by
 * admins and must not turn a reader's request into an error. It follows SQL's null semantics instead:
 * the condition holding it matches nothing; inside `_in` only that value is dropped (as `x IN (1, NULL)`
 * matches 1). The filter language has no NOT, so "matches nothing" can only ever narrow a result —
 * an unbindable value fails closed.
 */
export function bindDynamicValues(
  node: FilterNode,
  context: DynamicContext,
  collection: CollectionSchema,
): BoundFilterNode {
  if (node.kind === 'and')
    return allOf(node.nodes.map((child) => bindDynamicValues(child, context, collection)));
  if (node.kind === 'or')
    return anyOf(node.nodes.map((child) => bindDynamicValues(child, context, collection)));
  if (node.kind === 'relation') {
    return { ...node, node: bindDynamicValues(node.node, context, node.hop.collection) };
  }
  if (!hasDynamicValues(node) || !('value' in node || 'values' in node)) return node as BoundFilterNode;

  const column = fieldOf(collection, node.field);
  if (!column) return MATCH_NONE;
  const field = operandField(column, node.operator);
  const bind = (value: OperandValue) => (isDynamicValue(value) ? resolve(value, field, context) : value);

  if ('value' in node) {
    const value = bind(node.value);
    return value === null ? MATCH_NONE : { ...node, value };
  }
  const values = node.values.map(bind);
  if (node.operator === '_in' || node.operator === '_intersects') {
    const bound = values.filter((value): value is ScalarValue => value !== null);
    return bound.length === 0 ? MATCH_NONE : { ...node, operator: node.operator, values: bound };
  }
  if (values.some((value) => value === null)) return MATCH_NONE;
  const bound = values as ScalarValue[];
  if (node.operator === '_nin' || node.operator === '_nintersects') {
    return { ...node, operator: node.operator, values: bound };
  }
  return { ...node, operator: node.operator, values: [bound[0]!, bound[1]!] };
}

export function hasDynamicValues(node: FilterNode): boolean {
  if (node.kind === 'relation') return hasDynamicValues(node.node);
  if (node.kind !== 'condition') return node.nodes.some(hasDynamicValues);
  if ('value' in node) return isDynamicValue(node.value);
  if ('values' in node) return node.values.some(isDynamicValue);
  return false;
}

/** The value, or null when it cannot be bound (see bindDynamicValues). */
function resolve(value: DynamicValue, field: FieldSchema, context: DynamicContext): ScalarValue | null {
  const raw =
    value.dynamic === 'NOW' ? nowFor(field, context.now, value.offsetMs ?? 0) : identity(value, context);
  if (raw === null) return null;
  try {
    return coerceValue(field, raw);
  } catch (error) {
    if (error instanceof DomainError) return null;
    throw error;
  }
}

function identity(value: DynamicValue, context: DynamicContext): string | null {
  return value.dynamic === 'CURRENT_USER' ? context.user : context.role;
}

/**
 * `$NOW` as the field's type reads it: `timestamp` columns hold the server's local wall-clock time in the
 * seed format (whole seconds, as date_created is written); `timestamptz` is an instant; `date` and `time`
 * are the server's local date and time of day. Other types have no "now".
 */
function nowFor(field: FieldSchema, now: Date, offsetMs: number): string | null {
  const instant = new Date(now.getTime() + offsetMs);
  if (Number.isNaN(instant.getTime())) return null;
  switch (field.type) {
    case 'timestamp':
      return localTimestamp(instant);
    case 'dateTime':
      return instant.toISOString();
    case 'date':
      return localDate(instant);
    case 'time':
      return localTime(instant);
    default:
      return null;
  }
}
