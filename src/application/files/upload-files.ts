import type { Accountability } from '../../domain/accountability.ts';
import { invalidPayload } from '../../domain/errors.ts';
import { FILE_FACT_FIELDS, type FileFacts } from '../../domain/files/file-facts.ts';
import { newPrimaryKey } from '../../domain/items/auto-fields.ts';
import { parseItemPayload } from '../../domain/items/item-payload.ts';
import type { RawItemQuery } from '../../domain/query/parse-item-query.ts';
import { type CollectionSchema, FILES_COLLECTION } from '../../domain/schema/collection-schema.ts';
import { collectionFor } from '../items/collection-access.ts';
import {
  authorizeNewItem,
  type NewItemDraft,
  type NewItemRules,
  newItemDraft,
  newItemRules,
  writeNewItems,
} from '../items/new-items.ts';
import type { ReadBack } from '../items/read-back.ts';
import type { ReadRules } from '../items/read-rules.ts';
import { type WriteResult, writeResult } from '../items/write-result.ts';
import type { WriteRules } from '../items/write-rules.ts';
import type { Clock } from '../ports/clock.ts';
import type { FileStorage } from '../ports/file-storage.ts';
import type { ItemStore, ItemValues } from '../ports/item-store.ts';
import type { MediaSniffer } from '../ports/media-sniffer.ts';
import type { SchemaCatalog } from '../ports/schema-catalog.ts';
import { FILES_REACH, storedKey, temporaryKey } from './file-keys.ts';
import { fileMetadata } from './file-metadata.ts';
import type { FileUpload, FileUploadHead } from './file-upload.ts';
import type { Dimensions, ImageDimensions } from './image-dimensions.ts';
import { type InspectedBytes, InspectedUpload } from './inspected-upload.ts';
import type { UploadSettings } from './upload-settings.ts';

export type UploadFilesCommand = { uploads: AsyncIterable<FileUpload>; query: RawItemQuery };

/** A file whose bytes wait under their temporary key for the rows to commit. */
type Staged = {
  readonly id: string;
  readonly payload: ItemValues;
  readonly temporary: string;
  facts?: FileFacts;
};

/**
 * POST /files, multipart (docs/api.md §15): each file's row is checked as `POST /items` checks an item —
 * create permission, fields, presets, validation — on the metadata sent before it, BEFORE its first byte is
 * read, so a refused upload costs nothing. The bytes then stream to a temporary key, counted, hashed and
 * typed (InspectedUpload). Once every file is stored, the rows are inserted in one transaction through
 * the item writer (activity, revisions and realtime events as for items), checked again as stored, and
 * only then are the bytes moved to `files/<id>`. Any failure before the commit (a refusal, a client that
 * goes away, a unique clash) deletes the temporary bytes: all files or none.
 */
export class UploadFilesHandler {
  constructor(
    private readonly catalog: SchemaCatalog,
    private readonly readRules: ReadRules,
    private readonly grants: WriteRules,
    private readonly items: ItemStore,
    private readonly readBack: ReadBack,
    private readonly clock: Clock,
    private readonly storage: FileStorage,
    private readonly sniffer: MediaSniffer,
    private readonly settings: UploadSettings,
    private readonly dimensions: ImageDimensions,
  ) {}

  /**
   * The checks a file's metadata passes before any of its bytes is accepted, as `execute` runs them on each
   * file: for an upload whose bytes come later (a resumable upload's creation, docs/api.md §15).
   */
  async admit(caller: Accountability, upload: FileUploadHead): Promise<void> {
    const files = collectionFor(this.catalog, caller, FILES_COLLECTION, FILES_REACH);
    const rules = await newItemRules(this.grants, caller, files, this.clock.now());
    admitted(rules, files, upload);
  }

  async execute(caller: Accountability, command: UploadFilesCommand): Promise<WriteResult> {
    const files = collectionFor(this.catalog, caller, FILES_COLLECTION, FILES_REACH);
    const now = this.clock.now();
    const rules = await newItemRules(this.grants, caller, files, now);
    const plan = await this.readBack.plan(caller, files, command.query, now, this.catalog.current());
    const staged: Staged[] = [];
    let committed = false;
    try {
      for await (const upload of command.uploads) {
        const file: Staged = { ...admitted(rules, files, upload), temporary: temporaryKey() };
        staged.push(file);
        file.facts = await this.store(file, upload);
      }
      if (staged.length === 0) throw invalidPayload('The upload has no file.');
      const drafts = staged.map((file) => draftOf(rules, file.id, file.payload, file.facts));
      const written = await writeNewItems(
        { items: this.items, readBack: this.readBack, readRules: this.readRules },
        rules,
        plan,
        drafts,
        now,
      );
      committed = true;
      for (const file of staged) await this.storage.move(file.temporary, storedKey(file.id));
      return writeResult(staged.length > 1, written);
    } finally {
      if (!committed) await Promise.all(staged.map((file) => this.storage.delete(file.temporary)));
    }
  }

  private async store(file: Staged, upload: FileUpload): Promise<FileFacts> {
    const inspected = new InspectedUpload(upload.bytes, upload.declaredType, this.sniffer, this.settings);
    await this.storage.write(file.temporary, inspected.bytes());
    const bytes = inspected.result();
    return factsOf(file.id, bytes, await this.dimensions.of(file.temporary, bytes));
  }
}

/** A new file's id and payload, once its metadata has passed every check that needs no byte. */
function admitted(
  rules: NewItemRules,
  files: CollectionSchema,
  upload: FileUploadHead,
): { id: string; payload: ItemValues } {
  const id = String(newPrimaryKey(files)[files.primaryKey!]);
  const payload = parseItemPayload(fileMetadata(upload, files, 'create'), files, 'create');
  authorizeNewItem(rules, factsUndecided(draftOf(rules, id, payload)));
  return { id, payload };
}

/** The server's values (the id, and the facts once the bytes are in) win over presets and payload. */
function draftOf(rules: NewItemRules, id: string, payload: ItemValues, facts?: FileFacts): NewItemDraft {
  const key = { [rules.collection.primaryKey!]: id };
  return newItemDraft({ ...rules, auto: { ...rules.auto, ...key, ...facts } }, payload);
}

/**
 * The draft as it stands before the bytes are read: what it will record of them is not known yet, so a
 * rule about them (`type` starts with `image/`, `filesize` under a bound) is left undecided here and
 * judged once they are in.
 */
function factsUndecided(draft: NewItemDraft): NewItemDraft {
  const item = Object.fromEntries(
    Object.entries(draft.stored.item).filter(([name]) => !FILE_FACT_FIELDS.has(name)),
  );
  const unknown = new Set([...draft.stored.unknown, ...FILE_FACT_FIELDS]);
  return { ...draft, stored: { item, unknown } };
}

/** The facts a file's row records of its bytes. */
export function factsOf(id: string, inspected: InspectedBytes, dimensions: Dimensions): FileFacts {
  return {
    filename_disk: storedKey(id),
    filesize: inspected.size,
    checksum: inspected.checksum,
    type: inspected.type,
    width: dimensions.width,
    height: dimensions.height,
  };
}
