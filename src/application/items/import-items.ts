import type { Accountability } from '../../domain/accountability.ts';
import { DomainError, schemaChangedDuringImport } from '../../domain/errors.ts';
import { atRow } from '../../domain/items/import-row.ts';
import { itemOfTextCells, requireHeaderFields } from '../../domain/items/text-cells.ts';
import type { Clock } from '../ports/clock.ts';
import type { ImportFormat, ImportRecord, ImportRecordReader } from '../ports/import-records.ts';
import { type ItemStore, StaleSchemaError } from '../ports/item-store.ts';
import type { SchemaCatalog } from '../ports/schema-catalog.ts';
import { collectionFor } from './collection-access.ts';
import { type ImportChunk, importChunks } from './import-chunks.ts';
import type { ImportSlots } from './import-slots.ts';
import { type ByteCount, importText } from './import-text.ts';
import {
  authorizeNewItem,
  insertNewItems,
  type NewItemDraft,
  type NewItemRules,
  newItemDraft,
  newItemPayload,
  newItemRules,
} from './new-items.ts';
import type { ReadRules } from './read-rules.ts';
import { type ClashContext, withClashAnswered } from './write-clash.ts';
import type { WriteRules } from './write-rules.ts';

/** The bounds of one import (`import.*`, docs/api.md §8). */
export type ImportLimits = {
  readonly maxBytes: number;
  readonly maxRows: number;
  /** Rows checked and inserted together; in batch mode, rows committed together. */
  readonly chunkRows: number;
  /** Longest record (a CSV row, a JSON object, an NDJSON line), in characters. */
  readonly maxRecordChars: number;
};

export type ImportItemsCommand = {
  readonly collection: string;
  readonly format: ImportFormat;
  /** The file, as it arrives: read no faster than rows are inserted. */
  readonly bytes: AsyncIterable<Uint8Array>;
  /** `all`: one transaction, nothing written unless every row is; `batch`: each chunk commits alone. */
  readonly mode: 'all' | 'batch';
  /** Told after each chunk is inserted (in `all` mode, not yet committed). */
  readonly onProgress?: (progress: { readonly rows: number; readonly bytes: number }) => void;
};

/** One chunk of a batch import: the rows it covers (1-based, inclusive), and what became of them. */
export type ImportChunkOutcome =
  | { readonly rows: readonly [number, number]; readonly inserted: number }
  | { readonly rows: readonly [number, number]; readonly error: DomainError };

export type ImportResult = {
  readonly inserted: number;
  /** Batch mode only, in row order. */
  readonly chunks?: ReadonlyArray<ImportChunkOutcome>;
};

/**
 * POST /utils/import/:collection and `datagate import` (docs/api.md §13): the rows of a CSV, JSON array or
 * NDJSON file created as `POST /items` creates items — each row is a payload checked by new-items.ts,
 * a CSV row first read as the JSON item it stands for (text-cells.ts). The file is read as it arrives, in
 * chunks of `chunkRows`: a chunk is checked like one `POST /items` of its rows, then inserted in one
 * statement (ItemWriter.insertBulk), while the next chunk is read and checked; at most two chunks are held,
 * and the reading waits for the database.
 *
 * By default the whole file is one transaction: the first refusal, of a row (named by number) or of the
 * database, rolls everything back. The database's refusals (a unique clash, a foreign key, a rule on a
 * column only it fills) name the field, not the row: they come from a statement over a whole chunk, and
 * are answered as for `POST /items` (withClashAnswered). In batch mode each chunk commits on its own and
 * the answer lists each chunk's outcome; a chunk refused leaves the others in, and a file that cannot be
 * read further (a syntax error, a limit) ends the import with that chunk's refusal.
 */
export class ImportItemsHandler {
  constructor(
    private readonly catalog: SchemaCatalog,
    private readonly readRules: ReadRules,
    private readonly grants: WriteRules,
    private readonly items: ItemStore,
    private readonly reader: ImportRecordReader,
    private readonly clock: Clock,
    private readonly slots: ImportSlots,
    private readonly limits: ImportLimits,
  ) {}

  async execute(caller: Accountability, command: ImportItemsCommand): Promise<ImportResult> {
    const collection = collectionFor(this.catalog, caller, command.collection);
    const now = this.clock.now();
    const rules = await newItemRules(this.grants, caller, collection, now);
    const release = this.slots.take(caller);
    try {
      const count: ByteCount = { bytes: 0 };
      const text = importText(command.bytes, this.limits.maxBytes, count);
      const records = this.reader.records(text, command.format, this.limits.maxRecordChars, (names) =>
        requireHeaderFields(names, collection),
      );
      const chunks = importChunks(records, this.limits.chunkRows, this.limits.maxRows);
      const progress = (rows: number) => command.onProgress?.({ rows, bytes: count.bytes });
      const clash = (drafts: ReadonlyArray<NewItemDraft>) => async (): Promise<ClashContext> => ({
        caller,
        collection,
        rule: await this.readRules.optional(caller, collection, now),
        written: drafts.map((draft) => draft.stored.item),
      });
      return command.mode === 'all'
        ? await this.importAll(rules, chunks, progress, clash)
        : await this.importBatches(rules, chunks, progress, clash);
    } catch (error) {
      throw error instanceof StaleSchemaError ? await this.schemaChanged() : error;
    } finally {
      release();
    }
  }

  /**
   * One transaction. Chunk n is inserted while chunk n + 1 is read and checked; an insert's failure is
   * kept until it is awaited, so that the first failure in row order is the one answered.
   */
  private async importAll(
    rules: NewItemRules,
    chunks: AsyncIterable<ImportChunk<ImportRecord>>,
    progress: (rows: number) => void,
    clash: (drafts: ReadonlyArray<NewItemDraft>) => () => Promise<ClashContext>,
  ): Promise<ImportResult> {
    let inFlight: ReadonlyArray<NewItemDraft> = [];
    const inserted = await withClashAnswered(
      this.items,
      () =>
        this.items.write(async (writer) => {
          let done = 0;
          let pending: Promise<{ error: unknown } | null> | null = null;
          const settled = async () => {
            const outcome = await pending;
            pending = null;
            if (outcome) throw outcome.error;
          };
          try {
            for await (const chunk of chunks) {
              const drafts = checkedDrafts(rules, chunk);
              await settled();
              inFlight = drafts;
              pending = insertNewItems(writer, rules, drafts, true).then(
                () => {
                  done += drafts.length;
                  progress(done);
                  return null;
                },
                (error: unknown) => ({ error }),
              );
            }
          } catch (error) {
            await settled();
            throw error;
          }
          await settled();
          return done;
        }, rules.caller),
      () => clash(inFlight)(),
    );
    return { inserted };
  }

  private async importBatches(
    rules: NewItemRules,
    chunks: AsyncIterable<ImportChunk<ImportRecord>>,
    progress: (rows: number) => void,
    clash: (drafts: ReadonlyArray<NewItemDraft>) => () => Promise<ClashContext>,
  ): Promise<ImportResult> {
    const outcomes: ImportChunkOutcome[] = [];
    let inserted = 0;
    let next = 1;
    try {
      for await (const chunk of chunks) {
        const rows = [chunk.first, chunk.first + chunk.records.length - 1] as const;
        next = rows[1] + 1;
        try {
          const drafts = checkedDrafts(rules, chunk);
          await withClashAnswered(
            this.items,
            () => this.items.write((writer) => insertNewItems(writer, rules, drafts, true), rules.caller),
            clash(drafts),
          );
          inserted += drafts.length;
          outcomes.push({ rows, inserted: drafts.length });
          progress(inserted);
        } catch (error) {
          if (error instanceof StaleSchemaError) {
            // Every later chunk would meet the same columns: the import ends at this one.
            outcomes.push({ rows, error: await this.schemaChanged() });
            return { inserted, chunks: outcomes };
          }
          if (!(error instanceof DomainError)) throw error;
          outcomes.push({ rows, error });
        }
      }
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      outcomes.push({ rows: [next, error.extensions.row ?? next], error });
    }
    return { inserted, chunks: outcomes };
  }

  /**
   * A collection's columns changed under the import (by hand, or by another instance whose notice has not
   * arrived): unlike a single write (withFreshSchema), the import cannot run again, the file having been
   * read as it came. The schema is re-read, so that the same file sent again meets the columns as they are.
   */
  private async schemaChanged(): Promise<DomainError> {
    await this.catalog.refresh();
    return schemaChangedDuringImport();
  }
}

/** The chunk's rows checked as one `POST /items` of them checks its items: all built, then all authorized. */
function checkedDrafts(rules: NewItemRules, chunk: ImportChunk<ImportRecord>): NewItemDraft[] {
  const drafts = chunk.records.map((record, index) => {
    try {
      return newItemDraft(rules, payloadOf(record, rules));
    } catch (error) {
      throw atRow(error, chunk.first + index);
    }
  });
  drafts.forEach((draft, index) => {
    try {
      authorizeNewItem(rules, draft);
    } catch (error) {
      throw atRow(error, chunk.first + index);
    }
  });
  return drafts;
}

function payloadOf(record: ImportRecord, rules: NewItemRules) {
  const raw = record.kind === 'json' ? record.value : itemOfTextCells(record.cells, rules.collection);
  return newItemPayload(rules, raw);
}
