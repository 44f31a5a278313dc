import type { Accountability } from '../../domain/accountability.ts';
import { invalidPayload, notFound } from '../../domain/errors.ts';
import { coerceKey } from '../../domain/query/coerce-value.ts';
import type { RawItemQuery } from '../../domain/query/parse-item-query.ts';
import { FILES_COLLECTION, fieldOf } from '../../domain/schema/collection-schema.ts';
import { collectionFor, requireWritable } from '../items/collection-access.ts';
import type { ReadRules } from '../items/read-rules.ts';
import type { UpdateItemsHandler } from '../items/update-items.ts';
import type { WriteResult } from '../items/write-result.ts';
import type { WriteRules } from '../items/write-rules.ts';
import type { Clock } from '../ports/clock.ts';
import type { FileStorage } from '../ports/file-storage.ts';
import type { ItemStore } from '../ports/item-store.ts';
import type { MediaSniffer } from '../ports/media-sniffer.ts';
import type { SchemaCatalog } from '../ports/schema-catalog.ts';
import type { FileBytes } from './file-bytes.ts';
import { FILES_REACH, storedKey, temporaryKey } from './file-keys.ts';
import { fileMetadata } from './file-metadata.ts';
import type { FileUpload } from './file-upload.ts';
import type { ImageDimensions } from './image-dimensions.ts';
import { InspectedUpload } from './inspected-upload.ts';
import { factsOf } from './upload-files.ts';
import type { UploadSettings } from './upload-settings.ts';

export type ReplaceFileCommand = { key: string; uploads: AsyncIterable<FileUpload>; query: RawItemQuery };

/**
 * PATCH /files/:id, multipart (docs/api.md §15): new bytes for a file, with metadata fields before them.
 * Before the first byte is read: the caller's update permission on files, and the file's row visible to
 * them (else the 404 of a missing file). The bytes go to a temporary key, inspected as an upload's are;
 * the row is then updated as `PATCH /items` updates one (every field, row and validation check, inside the
 * transaction), with the new facts; only then do the bytes replace the old ones under `files/<id>`, and
 * the variants of the old bytes go. A failure before that deletes the new bytes; the old ones stay.
 */
export class ReplaceFileHandler {
  constructor(
    private readonly catalog: SchemaCatalog,
    private readonly readRules: ReadRules,
    private readonly grants: WriteRules,
    private readonly items: ItemStore,
    private readonly updateItems: UpdateItemsHandler,
    private readonly fileBytes: FileBytes,
    private readonly clock: Clock,
    private readonly storage: FileStorage,
    private readonly sniffer: MediaSniffer,
    private readonly settings: UploadSettings,
    private readonly dimensions: ImageDimensions,
  ) {}

  async execute(caller: Accountability, command: ReplaceFileCommand): Promise<WriteResult> {
    const files = collectionFor(this.catalog, caller, FILES_COLLECTION, FILES_REACH);
    const now = this.clock.now();
    const rule = await this.readRules.for(caller, files, now);
    await this.grants.for(caller, files, 'update', now);
    requireWritable(files);
    const id = coerceKey(fieldOf(files, files.primaryKey!)!, command.key);
    const visible =
      id !== null &&
      (await this.items.get({
        collection: files,
        work: caller.work,
        select: [{ field: 'id', visibleWhen: null }],
        visible: rule.rows,
        id,
      })) !== null;
    if (!visible) throw notFound();
    const key = String(id);

    const temporary = temporaryKey();
    let replaced = false;
    try {
      const uploads = command.uploads[Symbol.asyncIterator]();
      const first = await uploads.next();
      if (first.done) throw invalidPayload('The upload has no file.');
      const upload = first.value;
      const body = fileMetadata(upload, files, 'update');
      const inspected = new InspectedUpload(upload.bytes, upload.declaredType, this.sniffer, this.settings);
      await this.storage.write(temporary, inspected.bytes());
      if (!(await uploads.next()).done) throw invalidPayload('A file is replaced by one file only.');
      const bytes = inspected.result();
      const result = await this.updateItems.execute(caller, {
        collection: FILES_COLLECTION,
        key,
        body,
        query: command.query,
        serverValues: factsOf(key, bytes, await this.dimensions.of(temporary, bytes)),
      });
      replaced = true;
      await this.storage.move(temporary, storedKey(key));
      await this.fileBytes.removeVariants(key);
      return result;
    } finally {
      if (!replaced) await this.storage.delete(temporary);
    }
  }
}
