import type { QueryWitness } from '../../domain/query/hop-of.ts';
import type { ItemQuery } from '../../domain/query/item-query.ts';
import { parseItemQuery, type QueryLimits, type RawItemQuery } from '../../domain/query/parse-item-query.ts';
import type { CollectionSchema, SchemaSnapshot } from '../../domain/schema/collection-schema.ts';

/** Distinct queries kept; past this the memo simply starts over. */
const MAX_MEMOIZED = 1_000;

/** Longer queries are parsed every time, so that what the memo holds stays small whatever callers send. */
const MAX_KEY_LENGTH = 1_024;

/**
 * Item queries as parsed, by collection and raw query, for one set of limits and the schema snapshot they were
 * parsed against. Parsing depends on nothing else — the caller's rules apply to the parsed query afterwards —
 * and an ItemQuery is read-only, so the same query of the same collection (a client's page after page, a
 * screen polled) is parsed once per snapshot: the first step of issue 14's compiled request shapes, before any
 * SQL. A query that is refused, or a parse that tells a witness what it names (parse-as-caller.ts), runs every
 * time; a new snapshot starts the memo over.
 */
export class ItemQueryMemo {
  private schema: SchemaSnapshot | undefined;
  /** With the collection parsed against: one read during a refresh may pair the new snapshot with an old one. */
  private readonly parsed = new Map<string, { collection: CollectionSchema; query: ItemQuery }>();

  constructor(private readonly limits: QueryLimits) {}

  parse(
    raw: RawItemQuery,
    collection: CollectionSchema,
    schema: SchemaSnapshot,
    witness?: QueryWitness,
  ): ItemQuery {
    if (witness) return parseItemQuery(raw, collection, this.limits, schema, witness);
    const key = `${collection.name}\u0000${JSON.stringify(raw)}`;
    if (key.length > MAX_KEY_LENGTH) return parseItemQuery(raw, collection, this.limits, schema);
    if (schema !== this.schema) {
      this.parsed.clear();
      this.schema = schema;
    }
    const known = this.parsed.get(key);
    if (known?.collection === collection) return known.query;
    const query = parseItemQuery(raw, collection, this.limits, schema);
    if (this.parsed.size >= MAX_MEMOIZED) this.parsed.clear();
    this.parsed.set(key, { collection, query });
    return query;
  }
}
