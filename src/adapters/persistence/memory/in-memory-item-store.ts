import {
  type ItemAggregateRequest,
  type ItemGetRequest,
  type ItemKeysRequest,
  type ItemListRequest,
  type ItemListResult,
  type ItemSnapshot,
  type ItemStore,
  type ItemWriter,
  liveSnapshot,
  StaleSchemaError,
  type StoredItem,
} from '../../../application/ports/item-store.ts';
import type { Accountability } from '../../../domain/accountability.ts';
import { DomainError, invalidPayload } from '../../../domain/errors.ts';
import type { ScalarValue } from '../../../domain/query/filter.ts';
import type { CollectionSchema } from '../../../domain/schema/collection-schema.ts';
import { fieldOf } from '../../../domain/schema/collection-schema.ts';
import { missingReference } from '../postgres/write-refusals.ts';
import type { InMemoryActivityLog } from './in-memory-activity-log.ts';
import { aggregateRows } from './in-memory-aggregates.ts';
import { danglingReference } from './in-memory-foreign-keys.ts';
import type { InMemoryItemEventLog } from './in-memory-item-event-log.ts';
import { arrayBytes, assertWithinBudget, itemsWithKeys, rowJson } from './in-memory-item-json.ts';
import { assertUnique, completeRow, InMemoryItemWriter, storedValue } from './in-memory-item-writer.ts';
import { RelatedRows } from './in-memory-related-rows.ts';
import { sortRows } from './in-memory-row-order.ts';
import type { InMemorySchema, MemoryTable, StoredRow } from './in-memory-schema.ts';

/**
 * ItemStore over the rows InMemorySchema keeps, evaluating each request with the domain's own filter
 * semantics (matchesFilter) — the reference the SQL store is tested against. Sorting is PostgreSQL's
 * (in-memory-row-order.ts). Relations (nested reads, filters and sorts across them) read the other
 * tables' rows as the same call finds them, as one SQL statement would.
 */
export class InMemoryItemStore implements ItemStore {
  /** Settles when the running write transaction has ended. */
  private writing: Promise<void> = Promise.resolve();

  /**
   * `events`: the change log every committed write appends to; absent, nothing is recorded. `activity`:
   * where committed writes record their activity and revisions; absent, none.
   */
  constructor(
    private readonly schema: InMemorySchema,
    private readonly events?: InMemoryItemEventLog,
    private readonly activity?: InMemoryActivityLog,
  ) {}

  async list(request: ItemListRequest): Promise<ItemListResult> {
    const { collection } = request;
    const related = this.related();
    const visibleRows = this.table(collection).rows.filter((row) =>
      related.matches(request.visible, row, collection),
    );
    const filtered = visibleRows.filter((row) => related.matches(request.filter, row, collection));
    const after = request.after ?? null;
    const sorted = sortRows(
      after ? filtered.filter((row) => related.matches(after, row, collection)) : filtered,
      request.sort,
      collection,
      related,
    );
    const end = request.limit === null ? undefined : request.offset + request.limit;
    const rows = sorted.slice(request.offset, end);
    const items = rows.map((row) => rowJson(row, request.select, collection, related));
    assertWithinBudget(arrayBytes(items), request.maxBytes);
    const { count } = request;
    return {
      json: `[${items.join(',')}]`,
      ...(count.total ? { totalCount: visibleRows.length } : {}),
      ...(count.filtered ? { filterCount: filtered.length } : {}),
      // No planner here: the estimate is the exact count.
      ...(count.estimatedTotal ? { estimatedTotalCount: visibleRows.length } : {}),
      ...(count.estimatedFiltered ? { estimatedFilterCount: filtered.length } : {}),
      ...(request.lastRowFields ? { lastRow: lastRowOf(rows, request.limit, request.lastRowFields) } : {}),
    };
  }

  async get(request: ItemGetRequest): Promise<string | null> {
    // The budget is checked on the item alone, as PostgreSQL measures it.
    const { maxBytes, ...unbounded } = request;
    const [item] = itemsWithKeys(
      this.table(request.collection).rows,
      { ...unbounded, keys: [request.id] },
      this.related(),
    );
    if (item === undefined) return null;
    assertWithinBudget(Buffer.byteLength(item), maxBytes);
    return item;
  }

  async getMany(request: ItemKeysRequest): Promise<string[]> {
    return itemsWithKeys(this.table(request.collection).rows, request, this.related());
  }

  async aggregate(request: ItemAggregateRequest): Promise<string> {
    return aggregateRows(this.table(request.collection).rows, request, this.related());
  }

  /**
   * Runs `work` on copies of the tables it touches and publishes them when it resolves (nothing when it
   * throws). One transaction at a time, in arrival order: the in-memory stand-in for row locks, so a
   * read-modify-write inside `work` never loses a concurrent one. Readers do not wait; they see the last
   * committed rows. A `work` that starts another write on this store waits for itself forever.
   */
  async write<T>(work: (writer: ItemWriter) => Promise<T>, author?: Accountability): Promise<T> {
    const previous = this.writing;
    let done!: () => void;
    this.writing = new Promise<void>((resolve) => {
      done = resolve;
    });
    await previous;
    try {
      const activity = this.activity && { log: this.activity, ...(author ? { author } : {}) };
      const writer = new InMemoryItemWriter(this.schema, this.events, activity);
      const result = await work(writer);
      writer.commit();
      return result;
    } finally {
      done();
    }
  }

  /** No snapshot in memory: each read of an export sees the rows last committed when it runs. */
  async snapshot(): Promise<ItemSnapshot> {
    return liveSnapshot(this);
  }

  /**
   * Adds rows for tests and seeding, given as a client would write them (numbers or digit strings for
   * int8, JSON values for json, any accepted date spelling); they are stored canonical. All or nothing:
   * an unknown field is INVALID_PAYLOAD, a value that does not fit its column FAILED_VALIDATION, a
   * duplicate in a unique column RECORD_NOT_UNIQUE, a foreign key pointing nowhere FAILED_VALIDATION
   * naming it (the rows given may point at each other). Missing fields take their default, an identity
   * key counts up, anything else is null.
   */
  insert(collection: string, rows: ReadonlyArray<Readonly<Record<string, unknown>>>): void {
    const table = this.schema.table(collection);
    if (!table) throw new DomainError('COLLECTION_NOT_FOUND', `Collection "${collection}" does not exist.`);
    const identity = { next: table.nextIdentity };
    const stored = rows.map((row) => {
      const given: Record<string, ScalarValue | null> = Object.create(null);
      for (const [name, value] of Object.entries(row)) {
        const field = fieldOf(table.schema, name);
        if (!field) throw invalidPayload(`Unknown field "${name}".`, name);
        given[name] = storedValue(field, value);
      }
      return completeRow(table.schema, table.defaults, given, identity);
    });
    assertUnique(table.schema, [...table.rows, ...stored]);
    const rowsOf = (name: string) => (name === collection ? [...table.rows, ...stored] : this.liveRows(name));
    const dangling = danglingReference(this.schema.current(), collection, stored, rowsOf);
    if (dangling) throw missingReference(dangling.field);
    table.rows.push(...stored);
    table.nextIdentity = identity.next;
  }

  /** Related rows as the live tables hold them now: a read runs without awaiting, so it sees one state. */
  private related(): RelatedRows {
    return new RelatedRows((name) => this.liveRows(name));
  }

  private liveRows(name: string): ReadonlyArray<StoredRow> {
    const table = this.schema.table(name);
    if (!table) throw new StaleSchemaError();
    return table.rows;
  }

  private table(collection: CollectionSchema): MemoryTable {
    const table = this.schema.table(collection.name);
    if (!table)
      throw new DomainError('COLLECTION_NOT_FOUND', `Collection "${collection.name}" does not exist.`);
    return table;
  }
}

/** The fields of a full page's last row (ItemListRequest.lastRowFields); null when no page follows. */
function lastRowOf(
  rows: ReadonlyArray<StoredRow>,
  limit: number | null,
  fields: ReadonlyArray<string>,
): StoredItem | null {
  const last = rows.at(-1);
  if (last === undefined || limit === null || rows.length < limit) return null;
  return Object.fromEntries(fields.map((field) => [field, last[field] ?? null]));
}
