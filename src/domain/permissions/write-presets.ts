import { DomainError, failedValidation } from '../errors.ts';
import { generatedKey } from '../items/auto-fields.ts';
import { parseItemPayload } from '../items/item-payload.ts';
import { isServerField } from '../items/server-fields.ts';
import { bindDynamicValues, type DynamicContext } from '../query/bind-dynamic-values.ts';
import { parseDynamicValue } from '../query/dynamic-value.ts';
import type { Condition, FilterNode, ScalarValue } from '../query/filter.ts';
import type { CollectionSchema } from '../schema/collection-schema.ts';
import { fieldOf } from '../schema/collection-schema.ts';
import type { BindWriteFilter } from './write-grant.ts';

/**
 * A permission's presets as canonical values, checked like a payload (parseItemPayload): a preset for a
 * field the collection lacks, or a value that does not fit its column, throws — the caller then treats
 * the whole permission as unusable (fail closed), as for a filter that no longer fits.
 *
 * As in Directus, a preset may be a dynamic value (`"owner": "$CURRENT_USER"`). It is resolved the way a
 * filter operand is — through `bind`, on an `_eq` condition — so both follow the same rules; a value that
 * cannot be bound (the public caller's `$CURRENT_USER`) presets null.
 */
export function parsePresets(
  raw: Record<string, unknown> | null,
  collection: CollectionSchema,
  bind: BindWriteFilter,
): Record<string, ScalarValue | null> {
  if (raw === null) return {};
  // Arrays and other non-objects are left to parseItemPayload to refuse.
  const resolved =
    typeof raw === 'object' && !Array.isArray(raw)
      ? Object.fromEntries(
          Object.entries(raw).map(([key, value]) => [key, resolve(key, value, collection, bind)]),
        )
      : raw;
  return parseItemPayload(resolved, collection, 'create');
}

/** Stands for the callers a preset will be bound for, when a permission is written: any user and role. */
const SOME_CALLER: DynamicContext = {
  user: '00000000-0000-4000-8000-000000000001',
  role: '00000000-0000-4000-8000-000000000002',
  now: new Date(0),
};

/**
 * Checks a permission's presets when it is written (docs/api.md §6), so that a value that does not fit
 * its field is refused then rather than making the permission grant nothing at every write (parsePresets
 * fails closed): each value is checked as an item write's is, a dynamic value as it binds for a signed-in
 * caller (`$CURRENT_USER` on a float, `$NOW` on a boolean, `$NOW(soon)` are refused). A preset for a field
 * the server sets itself could never apply, so it is refused too rather than stored to be dropped at every
 * write. Throws FAILED_VALIDATION on `presets`, its message naming the preset. Fields the collection lacks
 * are the caller's to refuse first.
 */
export function checkPresets(raw: Readonly<Record<string, unknown>>, collection: CollectionSchema): void {
  for (const [key, value] of Object.entries(raw)) {
    refuseServerSet(key, collection);
    try {
      parsePresets({ [key]: value }, collection, (condition) => {
        const bound = bindDynamicValues(condition, SOME_CALLER, collection);
        if (!isValueCondition(bound))
          throw failedValidation(key, `Dynamic value "${String(value)}" does not fit the field's type.`);
        return bound;
      });
    } catch (error) {
      if (error instanceof DomainError)
        throw failedValidation('presets', `Preset "${key}": ${error.message}`);
      throw error;
    }
  }
}

/**
 * docs/api.md §5: callers cannot override what the server sets, and a preset fills in for a caller. A
 * server field (an auto field, a file's facts) and a generated key get the server's value whatever a
 * preset says: such a preset would be dropped at every write, unseen by whoever wrote it.
 */
function refuseServerSet(key: string, collection: CollectionSchema): void {
  const field = fieldOf(collection, key);
  if (field === undefined) return;
  if (isServerField(field, collection)) {
    throw failedValidation(
      'presets',
      `Preset "${key}": the server sets this field itself, and a preset cannot override it.`,
    );
  }
  if (generatedKey(collection)?.name === key) {
    throw failedValidation(
      'presets',
      `Preset "${key}": the server generates this key for each new item, and a preset cannot override it.`,
    );
  }
}

/** Throws INVALID_QUERY for a malformed dynamic value (`$NOW(soon)`), like a filter would. */
function resolve(key: string, value: unknown, collection: CollectionSchema, bind: BindWriteFilter): unknown {
  const dynamic = typeof value === 'string' ? parseDynamicValue(value) : null;
  const field = fieldOf(collection, key);
  // An unknown key stays as it is, for parseItemPayload to refuse by name.
  if (dynamic === null || !field) return value;
  const condition: FilterNode = { kind: 'condition', field: key, operator: '_eq', value: dynamic };
  const bound = bind(condition);
  if (!isValueCondition(bound)) return null;
  // Bound operands are canonical; a json one is JSON text, which the payload check expects as a value.
  return field.type === 'json' ? JSON.parse(String(bound.value)) : bound.value;
}

function isValueCondition(
  node: FilterNode<ScalarValue>,
): node is Extract<Condition<ScalarValue>, { value: ScalarValue }> {
  return node.kind === 'condition' && 'value' in node;
}
