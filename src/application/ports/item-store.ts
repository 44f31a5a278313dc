import type { Accountability } from '../../domain/accountability.ts';
import type { DatabaseWork } from '../../domain/database-work.ts';
import type { AggregateOrder, AggregateTerm, GroupTerm } from '../../domain/query/aggregate-query.ts';
import type { BoundFilterNode, ScalarValue } from '../../domain/query/filter.ts';
import type { SortField } from '../../domain/query/item-query.ts';
import type { RelationalHop } from '../../domain/query/relational-hop.ts';
import type { CollectionSchema } from '../../domain/schema/collection-schema.ts';

/**
 * A field to return, and the condition under which its value is shown (else it reads as null). With
 * `json`, the value at `json.path` inside the field (null where there is none), answered as `json.key`.
 * With `nested`, a relation expanded (docs/api.md §4, nested reads):
 * - many-to-one: `field` is the foreign-key column; the answer is the related row as an object, or null
 *   when there is none or the caller may not see it (`nested.visible`), and null where `visibleWhen`
 *   does not hold, exactly as the column itself would read;
 * - one-to-many: `field` is the relation's `oneField`; the answer is an array of the related rows the
 *   caller may see (`[]` when none), or of their primary keys alone when `nested.keysOnly`.
 */
export type SelectedField = {
  readonly field: string;
  readonly visibleWhen: BoundFilterNode | null;
  readonly json?: { readonly path: ReadonlyArray<string>; readonly key: string };
  readonly nested?: NestedRead;
};

/** The read of the rows at the other end of a relation, decided by the application as a top-level one is. */
export type NestedRead = {
  readonly hop: RelationalHop;
  /** Fields of `hop.collection`, in answer order; may nest further. */
  readonly select: ReadonlyArray<SelectedField>;
  /** The caller's read rule on `hop.collection`: only rows matching it are shown; null = all. */
  readonly visible: BoundFilterNode | null;
  /** One-to-many only (`deep`'s `_filter`, `_sort`, `_limit`, `_offset`), on top of `visible`. */
  readonly filter?: BoundFilterNode | null;
  /** One-to-many only; rows in primary-key order after these (as a list's `sort`). */
  readonly sort?: ReadonlyArray<SortKey>;
  /** One-to-many only; null or absent = no limit. */
  readonly limit?: number | null;
  readonly offset?: number;
  /** One-to-many only: answer the related rows' primary keys (`[1, 2]`) instead of objects (Directus's bare alias). */
  readonly keysOnly?: boolean;
};

/**
 * A sort key. With `through`, `field` belongs to the collection the last of these many-to-one hops arrives
 * at (`sort=shipment.customer.name`), and each hop carries the caller's read rule on its collection: a
 * related row the caller may not see sorts as if it were null.
 */
export type SortKey = SortField & {
  readonly through?: ReadonlyArray<{ readonly hop: RelationalHop; readonly visible: BoundFilterNode | null }>;
};

/**
 * One read, fully decided by the application: every filter is parsed, coerced, and bound (its type
 * cannot hold a dynamic value such as `$NOW`); every field exists. The store only translates it — one
 * statement per call on PostgreSQL.
 */
export type ItemListRequest = {
  readonly collection: CollectionSchema;
  /** The request's database work (`caller.work`); absent, the read is not a request's. */
  readonly work?: DatabaseWork;
  readonly select: ReadonlyArray<SelectedField>;
  /** Rows the caller may see (permission rule); null = all. `total_count` counts these. */
  readonly visible: BoundFilterNode | null;
  /** The caller's filter and search, on top of `visible`; null = none. `filter_count` counts these. */
  readonly filter: BoundFilterNode | null;
  readonly sort: ReadonlyArray<SortKey>;
  /** null = no limit. */
  readonly limit: number | null;
  readonly offset: number;
  /**
   * A keyset cursor's condition (rows after the previous page's last), on top of `visible` and `filter`
   * for the page only: the counts do not see it. Absent or null = none.
   */
  readonly after?: BoundFilterNode | null;
  /**
   * Fields whose canonical values on the page's last row come back as `lastRow` (the keyset of the next
   * cursor); read from the row itself, whether selected or not. Absent = none asked.
   */
  readonly lastRowFields?: ReadonlyArray<string>;
  /**
   * `estimatedTotal` / `estimatedFiltered`: the planner's estimates of the two counts, where the store has
   * a planner (the in-memory store answers the exact counts).
   */
  readonly count: {
    readonly total: boolean;
    readonly filtered: boolean;
    readonly estimatedTotal?: boolean;
    readonly estimatedFiltered?: boolean;
  };
  /** The response byte budget (see `ItemStore`); absent, none (tools and tests: every handler sets one). */
  readonly maxBytes?: number;
};

export type ItemListResult = {
  /** The page as a JSON array text, values formatted per docs/api.md §4, fields in `select` order. */
  readonly json: string;
  readonly totalCount?: number;
  readonly filterCount?: number;
  readonly estimatedTotalCount?: number;
  readonly estimatedFilterCount?: number;
  /** With `lastRowFields`: those fields of the page's last row, canonical; null for an empty page. */
  readonly lastRow?: StoredItem | null;
};

export type ItemGetRequest = {
  readonly collection: CollectionSchema;
  /** The request's database work (`caller.work`); absent, the read is not a request's. */
  readonly work?: DatabaseWork;
  readonly select: ReadonlyArray<SelectedField>;
  readonly visible: BoundFilterNode | null;
  /** Primary key value, coerced to the key's type. */
  readonly id: ScalarValue;
  /** The response byte budget (see `ItemStore`); absent, none (tools and tests: every handler sets one). */
  readonly maxBytes?: number;
};

/** Several items by primary key, as a write reads back what it wrote. */
export type ItemKeysRequest = {
  readonly collection: CollectionSchema;
  /** The request's database work (`caller.work`); absent, the read is not a request's. */
  readonly work?: DatabaseWork;
  readonly select: ReadonlyArray<SelectedField>;
  readonly visible: BoundFilterNode | null;
  /** Primary key values, coerced to the key's type; a key may repeat. */
  readonly keys: ReadonlyArray<ScalarValue>;
  /**
   * The response byte budget (see `ItemStore`), counted as the JSON array of the items would be; absent,
   * none (tools and tests: every handler sets one).
   */
  readonly maxBytes?: number;
};

/**
 * One row's values for a write, already checked and coerced by the application: canonical forms as in
 * `ScalarValue` (json fields hold their JSON text), null for SQL NULL. Fields absent from the object are
 * left to the database (defaults) on insert and unchanged on update.
 */
export type ItemValues = Readonly<Record<string, ScalarValue | null>>;

/** A stored row as canonical values (same forms as ItemValues), e.g. for checking permission filters. */
export type StoredItem = Readonly<Record<string, ScalarValue | null>>;

/**
 * The writes of one request, inside one database transaction. Rows read here are locked until the
 * transaction ends, so the checks made on them still hold when the write lands.
 *
 * Constraint violations become DomainErrors naming the field: unique → RECORD_NOT_UNIQUE, not-null,
 * too long, out of range, check → FAILED_VALIDATION. They abort the whole transaction.
 */
export interface ItemWriter {
  /** Inserts the rows in order; returns each new row's primary key (canonical). */
  insert(collection: CollectionSchema, rows: ReadonlyArray<ItemValues>): Promise<ScalarValue[]>;
  /**
   * `insert` for thousands of rows at once (an import): the same rows, keys, events and refusals, in the
   * adapter's cheapest statement for many rows (on PostgreSQL one bound parameter per statement).
   */
  insertBulk(collection: CollectionSchema, rows: ReadonlyArray<ItemValues>): Promise<ScalarValue[]>;
  /**
   * The current rows with these primary keys, locked, keyed by `String(key)`; keys without a row are
   * absent. Unknown-type columns are left out (they cannot be checked or written).
   */
  lockRows(collection: CollectionSchema, keys: ReadonlyArray<ScalarValue>): Promise<Map<string, StoredItem>>;
  /** The rows matching `filter` (null = all), locked, in primary-key order; the first `limit` when given. */
  lockMatching(
    collection: CollectionSchema,
    filter: BoundFilterNode | null,
    limit?: number,
  ): Promise<StoredItem[]>;
  /** Sets the same values on every row with one of these keys. */
  update(collection: CollectionSchema, keys: ReadonlyArray<ScalarValue>, values: ItemValues): Promise<void>;
  delete(collection: CollectionSchema, keys: ReadonlyArray<ScalarValue>): Promise<void>;
  /**
   * `ItemStore.getMany` as this transaction sees the rows, its own writes included: how a write reads back
   * what it wrote before it commits, so an answer over the byte budget can still write nothing.
   */
  getMany(request: ItemKeysRequest): Promise<string[]>;
}

/**
 * Reads answer JSON text, and a request's `maxBytes` is the most UTF-8 bytes of it the store may hand
 * back. An answer that would be larger is refused with `responseTooLarge` (RESPONSE_TOO_LARGE) naming
 * its size: on PostgreSQL the size is measured in the statement and only it crosses to the server, so no
 * process ever holds more than the budget of one answer's text.
 */
export interface ItemStore {
  list(request: ItemListRequest): Promise<ItemListResult>;
  /** The item as JSON object text, or null when it does not exist or is not visible. */
  get(request: ItemGetRequest): Promise<string | null>;
  /**
   * The visible items with these keys, each as JSON object text like `get`'s, in the order of `keys` (a
   * key given twice, twice); keys without a visible item are left out. One statement on PostgreSQL.
   */
  getMany(request: ItemKeysRequest): Promise<string[]>;
  /**
   * Runs `work` in one transaction: committed when it resolves, rolled back (nothing written) when it
   * throws, and the error passed on. Each item it creates, updates or deletes records activity (and a
   * revision) in the same transaction where the store records them (docs/api.md §14), attributed to
   * `author` (absent: the system, no user), whose `work` bounds the transaction's statements.
   */
  write<T>(work: (writer: ItemWriter) => Promise<T>, author?: Accountability): Promise<T>;
  /**
   * Reads that all see the items as they were when it was taken, however long they go on (an export's
   * pages, docs/decisions/0034). On a PostgreSQL server it is one `REPEATABLE READ READ ONLY` transaction
   * holding a pool connection (on a replica when the request's reads are routed to one) until `close()`.
   * Where holding one would stall everyone else (PGlite's single connection) or there is none to hold
   * (in memory), each read sees the items as they are when it runs (`liveSnapshot`). `work` is the
   * request's, as on a read.
   */
  snapshot(work?: DatabaseWork): Promise<ItemSnapshot>;
  /**
   * The groups of the visible rows matching `filter`, each with its aggregates, as a JSON array text of
   * objects (docs/api.md §4b): the groupBy keys, then each function once — a number under its name for
   * `*`, else an object of field → result. Without groupBy, one group of all the rows (even none). One
   * statement on PostgreSQL.
   */
  aggregate(request: ItemAggregateRequest): Promise<string>;
}

/** See `ItemStore.snapshot`. */
export interface ItemSnapshot {
  list(request: ItemListRequest): Promise<ItemListResult>;
  /** Lets the snapshot go (its connection back to the pool); a second call does nothing. */
  close(): Promise<void>;
}

/** The reads of `store` as they come, as a snapshot: for stores that cannot hold one. */
export function liveSnapshot(store: Pick<ItemStore, 'list'>): ItemSnapshot {
  return { list: (request) => store.list(request), close: async () => {} };
}

/** One aggregate read, fully decided by the application as a list is. */
export type ItemAggregateRequest = {
  readonly collection: CollectionSchema;
  /** The request's database work (`caller.work`); absent, the read is not a request's. */
  readonly work?: DatabaseWork;
  readonly aggregates: ReadonlyArray<AggregateTerm>;
  readonly groupBy: ReadonlyArray<GroupTerm>;
  /** Rows the caller may see (permission rule); null = all. */
  readonly visible: BoundFilterNode | null;
  /** The caller's filter and search, on top of `visible`; null = none. */
  readonly filter: BoundFilterNode | null;
  /** A total order of the groups (every groupBy entry appears in it). */
  readonly sort: ReadonlyArray<AggregateOrder>;
  /** Of groups; null = no limit. */
  readonly limit: number | null;
  readonly offset: number;
  /** The response byte budget (see `ItemStore`); absent, none. */
  readonly maxBytes?: number;
};

/**
 * Thrown by a store when the database no longer has a table or column of the snapshot it was given
 * (changed by hand, outside the API): the caller re-reads the schema and tries once more.
 */
export class StaleSchemaError extends Error {
  constructor() {
    super('The database schema changed since it was last read.');
    this.name = 'StaleSchemaError';
  }
}
