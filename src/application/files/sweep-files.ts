import type { Accountability } from '../../domain/accountability.ts';
import { coerceKey } from '../../domain/query/coerce-value.ts';
import type { ScalarValue } from '../../domain/query/filter.ts';
import { afterCondition } from '../../domain/query/keyset.ts';
import { type CollectionSchema, FILES_COLLECTION, fieldOf } from '../../domain/schema/collection-schema.ts';
import { requireAdmin } from '../access.ts';
import { collectionFor } from '../items/collection-access.ts';
import type { Clock } from '../ports/clock.ts';
import type { FileStorage, StoredObject, UnreferencedBytes } from '../ports/file-storage.ts';
import type { ItemStore, SelectedField } from '../ports/item-store.ts';
import type { SchemaCatalog } from '../ports/schema-catalog.ts';
import { FILES_REACH } from './file-keys.ts';

/** Keys checked against the rows per query, and rows read per page. */
const PAGE_SIZE = 500;
/** Stats in flight at once while rows are checked for their bytes (an S3 HEAD or a query each). */
const STAT_CONCURRENCY = 16;

/** Which of the store's areas a finding is in: `files/<id>`, `variants/<id>/…` or `tmp/…`. */
export type SweepArea = 'files' | 'variants' | 'uploads';

export type SweepFinding =
  /** Bytes no row needs: removed with `delete`. */
  | {
      readonly kind: 'orphan';
      readonly area: SweepArea;
      readonly object: StoredObject;
      readonly deleted: boolean;
    }
  /** A row whose `filename_disk` names no object: reported only, never deleted (the row is the record). */
  | { readonly kind: 'missing-bytes'; readonly id: string; readonly key: string }
  /** Bytes the store holds under no key (`FileStorage.unreferenced`): reported only. */
  | { readonly kind: 'unreferenced'; readonly bytes: UnreferencedBytes };

export type SweepStage = SweepArea | 'unreferenced' | 'rows';

export type SweepProgress = {
  readonly stage: SweepStage;
  /** Keys listed, or rows checked, in this stage so far. */
  readonly done: number;
  /** Known for the rows only (counted first); a store's keys cannot be counted without listing them. */
  readonly total?: number;
};

export type SweepFilesCommand = {
  /** Remove the orphans, rather than only report them. */
  readonly delete: boolean;
  /** `tmp/` keys younger than this are uploads in progress, left alone. */
  readonly olderThanMs: number;
  readonly onFinding?: (finding: SweepFinding) => void;
  readonly onProgress?: (progress: SweepProgress) => void;
};

export type SweepTally = { count: number; bytes: number };

export type SweepSummary = {
  readonly deleted: boolean;
  readonly orphans: Readonly<Record<SweepArea, SweepTally>>;
  /** Rows whose bytes are missing: reported, never deleted. */
  readonly missingBytes: number;
  /** Bytes under no key, where the store can hold such (large objects): reported, never deleted. */
  readonly unreferenced?: SweepTally;
  /** Keys listed and rows checked. */
  readonly keysChecked: number;
  readonly rowsChecked: number;
};

type FileRow = { id: string; filename_disk: string | null };
type StoredRow = FileRow & { filename_disk: string };

const ROW_FIELDS: ReadonlyArray<SelectedField> = [
  { field: 'id', visibleWhen: null },
  { field: 'filename_disk', visibleWhen: null },
];

/**
 * `datagate files sweep` (docs/api.md §9): finds what a crash between a row's commit and its bytes' move or
 * removal leaves (docs/decisions/0037) — `files/<id>` with no row, `variants/<id>/…` of a row that is gone,
 * `tmp/…` older than `olderThanMs` — and, with `delete`, removes it; then reports rows whose bytes are
 * missing, which it never deletes. The store is listed page by page and each page of keys is checked
 * against the rows in one query, so memory stays flat whatever the number of files; findings go to
 * `onFinding` as they are made, never collected. Where the store can hold bytes under no key (large
 * objects), those are reported too, never deleted: a write in progress holds such bytes as well.
 *
 * Safe beside a running server: bytes reach `files/<id>` only after their row commits, and leave after
 * it is deleted, so a key without a row is never one a server still needs; an upload in progress lives
 * under `tmp/` and is young (ages come from the store's `modifiedAt`).
 */
export class SweepFilesHandler {
  constructor(
    private readonly catalog: SchemaCatalog,
    private readonly items: ItemStore,
    private readonly storage: FileStorage,
    private readonly clock: Clock,
    private readonly pageSize = PAGE_SIZE,
  ) {}

  async execute(caller: Accountability, command: SweepFilesCommand): Promise<SweepSummary> {
    requireAdmin(caller);
    const files = collectionFor(this.catalog, caller, FILES_COLLECTION, FILES_REACH);
    const orphans: Record<SweepArea, SweepTally> = {
      files: { count: 0, bytes: 0 },
      variants: { count: 0, bytes: 0 },
      uploads: { count: 0, bytes: 0 },
    };
    let keysChecked = 0;
    const found = async (area: SweepArea, object: StoredObject) => {
      if (command.delete) await this.storage.delete(object.key);
      orphans[area].count += 1;
      orphans[area].bytes += object.size;
      command.onFinding?.({ kind: 'orphan', area, object, deleted: command.delete });
    };

    for (const area of ['files', 'variants'] as const) {
      let done = 0;
      for await (const page of pages(this.storage.list(`${area}/`), this.pageSize)) {
        const alive = await this.existingIds(
          files,
          page.map((object) => idOf(object.key)),
        );
        for (const object of page) if (!alive.has(idOf(object.key))) await found(area, object);
        done += page.length;
        command.onProgress?.({ stage: area, done });
      }
      keysChecked += done;
    }

    const cutoff = this.clock.now().getTime() - command.olderThanMs;
    let uploads = 0;
    for await (const object of this.storage.list('tmp/')) {
      if (object.modifiedAt.getTime() <= cutoff) await found('uploads', object);
      uploads += 1;
      if (uploads % this.pageSize === 0) command.onProgress?.({ stage: 'uploads', done: uploads });
    }
    command.onProgress?.({ stage: 'uploads', done: uploads });
    keysChecked += uploads;

    const unreferenced = await this.unreferenced(command);
    const rows = await this.checkRows(files, command);
    return {
      deleted: command.delete,
      orphans,
      missingBytes: rows.missing,
      ...(unreferenced ? { unreferenced } : {}),
      keysChecked,
      rowsChecked: rows.checked,
    };
  }

  /** What the store holds under no key, where it can hold such; undefined where it cannot. */
  private async unreferenced(command: SweepFilesCommand): Promise<SweepTally | undefined> {
    if (!this.storage.unreferenced) return undefined;
    const tally = { count: 0, bytes: 0 };
    for await (const bytes of this.storage.unreferenced()) {
      tally.count += 1;
      tally.bytes += bytes.size;
      command.onFinding?.({ kind: 'unreferenced', bytes });
      if (tally.count % this.pageSize === 0)
        command.onProgress?.({ stage: 'unreferenced', done: tally.count });
    }
    return tally;
  }

  /** Of these ids (`files/<id>`'s and `variants/<id>/…`'s), those a row has: one query. */
  private async existingIds(files: CollectionSchema, ids: ReadonlyArray<string>): Promise<Set<string>> {
    const idField = fieldOf(files, files.primaryKey!)!;
    const keys = ids.map((id) => coerceKey(idField, id)).filter((key): key is ScalarValue => key !== null);
    if (keys.length === 0) return new Set();
    const found = await this.items.getMany({
      collection: files,
      select: ROW_FIELDS.slice(0, 1),
      visible: null,
      keys,
    });
    return new Set(found.map((json) => String((JSON.parse(json) as FileRow).id)));
  }

  /** Rows in primary-key pages, each row's `filename_disk` looked up in the store. */
  private async checkRows(
    files: CollectionSchema,
    command: SweepFilesCommand,
  ): Promise<{ checked: number; missing: number }> {
    const keyset = [{ field: files.primaryKey!, direction: 'asc' as const }];
    let checked = 0;
    let missing = 0;
    let total: number | undefined;
    let last: ScalarValue | null | undefined;
    for (;;) {
      const page = await this.items.list({
        collection: files,
        select: ROW_FIELDS,
        visible: null,
        filter: null,
        sort: keyset,
        limit: this.pageSize,
        offset: 0,
        after: last === undefined ? null : afterCondition(keyset, [last], files),
        lastRowFields: [files.primaryKey!],
        count: { total: total === undefined, filtered: false },
      });
      total ??= page.totalCount;
      const rows = JSON.parse(page.json) as FileRow[];
      for (const row of await this.missingOf(rows)) {
        missing += 1;
        command.onFinding?.({ kind: 'missing-bytes', id: row.id, key: row.filename_disk });
      }
      checked += rows.length;
      command.onProgress?.({ stage: 'rows', done: checked, ...(total === undefined ? {} : { total }) });
      if (rows.length < this.pageSize || !page.lastRow) return { checked, missing };
      last = page.lastRow[files.primaryKey!] ?? null;
    }
  }

  /** The rows whose bytes are not in the store; rows without `filename_disk` (metadata only) have none. */
  private async missingOf(rows: ReadonlyArray<FileRow>): Promise<StoredRow[]> {
    const withBytes = rows.filter((row): row is StoredRow => row.filename_disk !== null);
    const missing: StoredRow[] = [];
    for (let start = 0; start < withBytes.length; start += STAT_CONCURRENCY) {
      const slice = withBytes.slice(start, start + STAT_CONCURRENCY);
      const stats = await Promise.all(slice.map((row) => this.storage.stat(row.filename_disk)));
      missing.push(...slice.filter((_row, index) => stats[index] === undefined));
    }
    return missing;
  }
}

/** The id in `files/<id>` or `variants/<id>/<digest>`. */
function idOf(key: string): string {
  return key.split('/')[1]!;
}

/** The objects in arrays of `size` (the last may be shorter), as listed. */
async function* pages(objects: AsyncIterable<StoredObject>, size: number): AsyncIterable<StoredObject[]> {
  let page: StoredObject[] = [];
  for await (const object of objects) {
    page.push(object);
    if (page.length === size) {
      yield page;
      page = [];
    }
  }
  if (page.length > 0) yield page;
}
