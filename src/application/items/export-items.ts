import type { Accountability } from '../../domain/accountability.ts';
import { DomainError } from '../../domain/errors.ts';
import type { BoundFilterNode } from '../../domain/query/filter.ts';
import { describeInput, invalidQuery } from '../../domain/query/invalid-query.ts';
import type { SortField } from '../../domain/query/item-query.ts';
import { afterCondition, keysetOf } from '../../domain/query/keyset.ts';
import type { QueryLimits, RawItemQuery } from '../../domain/query/parse-item-query.ts';
import { fieldOf } from '../../domain/schema/collection-schema.ts';
import type { ItemListRequest, ItemSnapshot, ItemStore, StoredItem } from '../ports/item-store.ts';
import type { SchemaCatalog } from '../ports/schema-catalog.ts';
import type { ListItemsHandler } from './list-items.ts';
import { withFreshSchema } from './with-fresh-schema.ts';

/** The file formats of `?export=` (docs/api.md §13, Export). */
export const EXPORT_FORMATS = ['csv', 'json', 'ndjson'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** A list request whose query names the format in `export`. */
export type ExportItemsQuery = { collection: string; query: RawItemQuery };

/** `export.*`: how an export reads the store. */
export type ExportSettings = {
  /** Rows per store read. */
  readonly pageRows: number;
  /** The byte budget of one read's JSON text: a page over it is read again in halves. */
  readonly pageMaxBytes: number;
};

/**
 * An export under way: what it is, and its items page by page. The first page has been read when the
 * export is handed out, so that everything that can refuse the request (the query, the rules, the first
 * read) has, before a byte of the file is written; a later page can still fail (the database lost).
 */
export type ItemExport = {
  readonly format: ExportFormat;
  readonly collection: string;
  /** The items' keys in answer order (a CSV's header), whether or not any item follows. */
  readonly fields: ReadonlyArray<string>;
  /**
   * The fields whose values are JSON values of the row's own (a json field, a `json(field, path)`): a
   * string among them may read back as another value if a CSV writes it as its bare text.
   */
  readonly jsonFields: ReadonlySet<string>;
  /**
   * `escape_formulas=true`: a CSV cell of text that a spreadsheet would run as a formula is written with a
   * leading `'` (docs/decisions/0078-csv-formulas-escaped-on-request).
   */
  readonly escapeFormulas: boolean;
  /**
   * Each page as the JSON array text a list answers (docs/api.md §4 value formats); never `[]`. All pages
   * are read in one snapshot of the items (`ItemStore.snapshot`), let go once the last has been read.
   */
  readonly pages: AsyncIterable<string>;
  /**
   * Lets the snapshot go (its held connection) if the pages were not read to the end: whoever opened the
   * export calls it when done, whatever happened; a second call does nothing.
   */
  close(): Promise<void>;
};

const NO_COUNTS: ItemListRequest['count'] = { total: false, filtered: false };

/**
 * GET /items/:collection?export= and `datagate export`: the rows and fields a list without a limit would
 * answer (docs/decisions/0034), read in pages so that no process ever holds more than a page of them.
 *
 * The list's own planning decides the store request once (rules, fields, filter, search, sort); the pages
 * then walk it by keyset — the sort ended by the primary key, each page after the last row of the one
 * before, as `meta=next` cursors do — which stays fast at any depth, all in one snapshot of the items so
 * that a row changed during the export is written once, as it was at the start. A sort across relations,
 * or a collection without a primary key, has no keyset here: those are read by offset instead.
 */
export class ExportItemsHandler {
  constructor(
    private readonly catalog: SchemaCatalog,
    private readonly list: ListItemsHandler,
    private readonly items: ItemStore,
    private readonly limits: QueryLimits,
    private readonly settings: ExportSettings,
  ) {}

  open(caller: Accountability, request: ExportItemsQuery): Promise<ItemExport> {
    const format = exportFormatOf(request.query);
    const escapeFormulas = escapeFormulasOf(request.query, format);
    return withFreshSchema(this.catalog, async () => {
      const { request: planned, query } = await this.list.plan(
        caller,
        { collection: request.collection, query: exportListQuery(request.query) },
        // The file is streamed, so its length needs no maximum; a page's bytes are bounded instead.
        { ...this.limits, limitMax: -1 },
      );
      const { collection } = planned;
      const keyset = query.sort.some((sort) => sort.hops !== undefined)
        ? null
        : keysetOf(query.sort, collection);
      // After the plan, so that a refusal holds nothing; every page, the first included, reads in it.
      const snapshot = await this.items.snapshot(caller.work);
      try {
        const pages = new ExportPages(snapshot, planned, keyset, this.settings);
        const first = await pages.next();
        return {
          format,
          collection: collection.name,
          fields: planned.select.map((selected) => selected.json?.key ?? selected.field),
          jsonFields: new Set(
            planned.select
              .filter(
                (selected) =>
                  selected.json !== undefined || fieldOf(collection, selected.field)?.type === 'json',
              )
              .map((selected) => selected.json?.key ?? selected.field),
          ),
          escapeFormulas,
          pages: pages.from(first, snapshot),
          close: () => snapshot.close(),
        };
      } catch (error) {
        await snapshot.close();
        throw error;
      }
    });
  }
}

/**
 * The pages of one export, read one at a time. `limit` and `offset`, when the query gives them, apply to
 * the whole export: the first page starts at the offset, and the pages stop at the limit.
 */
class ExportPages {
  private remaining: number | null;
  private rows: number;
  private offset: number;
  private after: BoundFilterNode | null;
  private done = false;

  constructor(
    private readonly items: Pick<ItemSnapshot, 'list'>,
    private readonly planned: ItemListRequest,
    private readonly keyset: ReadonlyArray<SortField> | null,
    private readonly settings: ExportSettings,
  ) {
    this.remaining = planned.limit;
    this.rows = settings.pageRows;
    this.offset = planned.offset;
    this.after = planned.after ?? null;
  }

  /** The pages from `first` on; the snapshot is let go as soon as the last is read (or the reader stops). */
  async *from(first: string | null, snapshot: ItemSnapshot): AsyncGenerator<string> {
    try {
      if (first !== null) yield first;
      while (!this.done) {
        const page = await this.next();
        if (page !== null) yield page;
      }
    } finally {
      await snapshot.close();
    }
  }

  /** The next page's JSON text; null when there is none (and `done` is then set). */
  async next(): Promise<string | null> {
    const limit = this.remaining === null ? this.rows : Math.min(this.rows, this.remaining);
    if (limit === 0) {
      this.done = true;
      return null;
    }
    const page = await this.read(limit);
    if (page === null) return this.next();
    // A page that is not full is the last: the store answers `lastRow` for a full page only.
    if (!page.lastRow) this.done = true;
    else this.advance(limit, page.lastRow);
    return page.json === '[]' ? null : page.json;
  }

  /** One store read; null when the page was over the byte budget and the page size has been halved. */
  private async read(limit: number) {
    const { keyset } = this;
    try {
      return await this.items.list({
        ...this.planned,
        limit,
        offset: this.offset,
        after: this.after,
        // Without a keyset, an empty list still asks whether the page was full.
        lastRowFields: keyset ? keyset.map((sort) => sort.field) : [],
        count: NO_COUNTS,
        maxBytes: this.settings.pageMaxBytes,
      });
    } catch (error) {
      if (!(error instanceof DomainError) || error.code !== 'RESPONSE_TOO_LARGE' || limit === 1) throw error;
      this.rows = Math.max(1, Math.floor(limit / 2));
      return null;
    }
  }

  private advance(limit: number, lastRow: StoredItem): void {
    if (this.remaining !== null) this.remaining -= limit;
    if (!this.keyset) {
      this.offset += limit;
      return;
    }
    const values = this.keyset.map(({ field }) => lastRow[field] ?? null);
    // After the last row of this page, which is after the query's own `after` and offset too.
    this.after = afterCondition(this.keyset, values, this.planned.collection);
    this.offset = 0;
  }
}

/** `export`: one of EXPORT_FORMATS, given once. */
function exportFormatOf(query: RawItemQuery): ExportFormat {
  const value = Object.hasOwn(query, 'export') ? query.export : undefined;
  const format = EXPORT_FORMATS.find((name) => name === value);
  if (format === undefined) {
    throw invalidQuery(`"export" must be one of ${EXPORT_FORMATS.join(', ')}; got ${describeInput(value)}.`, {
      field: 'export',
      reason: 'INVALID_VALUE',
    });
  }
  return format;
}

/**
 * `escape_formulas`: `true` or `false` (the default), given once, and only for a CSV file: the other
 * formats hold JSON text, which no spreadsheet runs, and a parameter that changes nothing is refused
 * rather than ignored.
 */
function escapeFormulasOf(query: RawItemQuery, format: ExportFormat): boolean {
  if (!Object.hasOwn(query, 'escape_formulas')) return false;
  const value = query.escape_formulas;
  if (value !== 'true' && value !== 'false') {
    throw invalidQuery(`"escape_formulas" is "true" or "false"; got ${describeInput(value)}.`, {
      field: 'escape_formulas',
      reason: 'INVALID_VALUE',
    });
  }
  if (format !== 'csv') {
    throw invalidQuery('"escape_formulas" applies to export=csv only.', {
      field: 'escape_formulas',
      reason: 'INVALID_VALUE',
    });
  }
  return value === 'true';
}

/**
 * The list query an export runs: `meta` is ignored (a file has no metadata) and no `limit` means all the
 * rows, not a list's default page. Groups are not exported: the query would ask for another answer.
 */
function exportListQuery(query: RawItemQuery): RawItemQuery {
  if (Object.hasOwn(query, 'aggregate') || Object.hasOwn(query, 'groupBy')) {
    throw invalidQuery('An export lists items; "aggregate" and "groupBy" are not exported.', {
      field: 'export',
      reason: 'INVALID_VALUE',
    });
  }
  const { export: _format, escape_formulas: _escape, meta: _meta, ...list } = query;
  return Object.hasOwn(list, 'limit') ? list : { ...list, limit: '-1' };
}
