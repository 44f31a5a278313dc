import { StaleSchemaError } from '../../../application/ports/item-store.ts';
import { normalizeDecimal } from '../../../domain/query/decimal-text.ts';
import { matchesFilter } from '../../../domain/query/evaluate-filter.ts';
import type { BoundFilterNode, ScalarValue } from '../../../domain/query/filter.ts';
import type { RelationalHop } from '../../../domain/query/relational-hop.ts';
import { type CollectionSchema, fieldOf } from '../../../domain/schema/collection-schema.ts';
import type { FieldType } from '../../../domain/schema/field-type.ts';
import type { StoredRow } from './in-memory-schema.ts';

/** The rows of a collection as one statement sees them: the live tables for a read, a transaction's copies for its own. */
export type RowsOf = (collection: string) => ReadonlyArray<StoredRow>;

const NONE: ReadonlyArray<StoredRow> = [];

const NUMERIC_TYPES: ReadonlySet<FieldType> = new Set(['integer', 'bigInteger', 'float', 'decimal']);

/**
 * A value as the key that equals every value PostgreSQL's `=` finds equal to it across a foreign key:
 * numbers by value (an integer column may refer to a bigint one, whose canonical form is a string),
 * everything else by its canonical text.
 */
export function keyText(type: FieldType, value: ScalarValue): string {
  if (NUMERIC_TYPES.has(type)) return normalizeDecimal(String(value)) ?? String(value);
  return String(value);
}

/**
 * The rows at the other end of relations, for one statement: each collection's rows are indexed by a
 * column the first time a hop looks them up by it, so that a page of nested reads costs one pass over
 * each related table rather than one per row (the twin's stand-in for PostgreSQL's index on the key).
 */
export class RelatedRows {
  private readonly indexes = new Map<string, Map<string, StoredRow[]>>();

  constructor(private readonly rowsOf: RowsOf) {}

  /** For matchesFilter: the rows across `hop` from `item`, whatever their visibility (the node says it). */
  readonly of = (hop: RelationalHop, item: Readonly<Record<string, unknown>>): ReadonlyArray<StoredRow> => {
    const { relation } = hop;
    const [from, to] =
      hop.direction === 'many-to-one'
        ? [relation.field, relation.relatedField]
        : [relation.relatedField, relation.field];
    const value = Object.hasOwn(item, from) ? (item[from] as ScalarValue | null | undefined) : null;
    if (value === null || value === undefined) return NONE;
    return this.withValue(hop.collection, to, value);
  };

  /** The rows of `collection` whose `field` equals `value` (never null), in table order. */
  withValue(collection: CollectionSchema, field: string, value: ScalarValue): ReadonlyArray<StoredRow> {
    const type = fieldOf(collection, field)?.type;
    if (type === undefined) throw new StaleSchemaError();
    return this.index(collection.name, field, type).get(keyText(type, value)) ?? NONE;
  }

  /** Whether `node` (null = all) holds for `row` of `collection`, relations included. */
  matches(node: BoundFilterNode | null, row: StoredRow, collection: CollectionSchema): boolean {
    return node === null || matchesFilter(node, row, collection, this.of);
  }

  private index(collection: string, field: string, type: FieldType): Map<string, StoredRow[]> {
    const name = `${collection}\u0000${field}`;
    let index = this.indexes.get(name);
    if (!index) {
      index = new Map();
      for (const row of this.rowsOf(collection)) {
        const value = row[field] ?? null;
        if (value === null) continue;
        const key = keyText(type, value);
        const rows = index.get(key);
        if (rows) rows.push(row);
        else index.set(key, [row]);
      }
      this.indexes.set(name, index);
    }
    return index;
  }
}
