import { DomainError } from '../errors.ts';
import { coerceValue } from '../query/coerce-value.ts';
import type { ScalarValue } from '../query/filter.ts';
import type { CollectionSchema, FieldSchema } from '../schema/collection-schema.ts';
import type { CanonicalItem } from './canonical-item.ts';

/**
 * A new item as the database will store it, as far as the request alone tells: the columns it names, and
 * for the others the column's default when that is a constant (`false`, `'open'::text`, `'{}'::jsonb`) or
 * null when it has none. `unknown` lists the columns only the database can fill: a sequence, an identity,
 * `now()`, a generated expression. Permission checks made before the insert treat those as undecided.
 */
export type StoredDraft = { readonly item: CanonicalItem; readonly unknown: ReadonlySet<string> };

const NONE_UNKNOWN: ReadonlySet<string> = new Set();

export function storedDraft(item: CanonicalItem, collection: CollectionSchema): StoredDraft {
  const completed: Record<string, ScalarValue | null> = Object.create(null);
  let unknown: Set<string> | undefined;
  for (const field of collection.fields) {
    if (Object.hasOwn(item, field.name)) {
      completed[field.name] = item[field.name] ?? null;
      continue;
    }
    const value = field.hasDefault ? constantDefaultOf(field) : null;
    if (value !== undefined) {
      completed[field.name] = value;
      continue;
    }
    unknown ??= new Set();
    unknown.add(field.name);
  }
  return { item: completed, unknown: unknown ?? NONE_UNKNOWN };
}

/** Per field schema (a catalog's snapshot is immutable): an import asks once per row. */
const constantDefaults = new WeakMap<FieldSchema, ScalarValue | null | undefined>();

function constantDefaultOf(field: FieldSchema): ScalarValue | null | undefined {
  if (constantDefaults.has(field)) return constantDefaults.get(field);
  const value = constantDefault(field);
  constantDefaults.set(field, value);
  return value;
}

/** `'text'::type`, as PostgreSQL prints a literal default (with any length or precision after the type). */
const CAST_LITERAL = /^'((?:[^']|'')*)'::[a-z ]+(?:\(\d+(?:,\d+)?\))?$/;
/** Booleans and non-negative numbers, which PostgreSQL prints bare. */
const BARE_LITERAL = /^(?:true|false|\d+(?:\.\d+)?)$/;
const NULL_LITERAL = /^NULL(?:::[a-z ]+(?:\(\d+(?:,\d+)?\))?)?$/;

/**
 * The canonical value of a constant default, null for a NULL one, undefined for anything the database
 * computes (or a literal that does not fit the column, which only the database can judge).
 */
function constantDefault(field: FieldSchema): ScalarValue | null | undefined {
  const expression = field.defaultValue;
  if (expression === null || field.type === 'unknown') return undefined;
  if (NULL_LITERAL.test(expression)) return null;
  const cast = CAST_LITERAL.exec(expression);
  const text = cast ? cast[1]!.replaceAll("''", "'") : BARE_LITERAL.test(expression) ? expression : null;
  if (text === null) return undefined;
  try {
    return coerceValue(field, field.type === 'json' ? JSON.parse(text) : text);
  } catch (error) {
    if (error instanceof DomainError || error instanceof SyntaxError) return undefined;
    throw error;
  }
}
