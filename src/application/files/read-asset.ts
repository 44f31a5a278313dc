import type { Accountability } from '../../domain/accountability.ts';
import { notFound } from '../../domain/errors.ts';
import { coerceKey } from '../../domain/query/coerce-value.ts';
import { FILES_COLLECTION, fieldOf } from '../../domain/schema/collection-schema.ts';
import { collectionFor } from '../items/collection-access.ts';
import type { ReadRules } from '../items/read-rules.ts';
import { withFreshSchema } from '../items/with-fresh-schema.ts';
import type { Clock } from '../ports/clock.ts';
import type { ByteRange, FileStorage } from '../ports/file-storage.ts';
import type { ItemStore, SelectedField } from '../ports/item-store.ts';
import type { SchemaCatalog } from '../ports/schema-catalog.ts';
import { FILES_REACH } from './file-keys.ts';

/** What serving a file's bytes needs to know of it (docs/api.md §15). */
export type Asset = {
  readonly id: string;
  /** Where the bytes are stored. */
  readonly key: string;
  readonly filename: string;
  readonly type: string;
  /** In bytes. */
  readonly size: number;
  /** An image's size in pixels, when the upload read it from its header. */
  readonly width: number | null;
  readonly height: number | null;
  /** SHA-256 in hex: the ETag. */
  readonly checksum: string;
  /** The last change of the row (its upload, or the replacement of its bytes). */
  readonly modifiedAt: Date | null;
  /** The bytes, or the range of them (which must lie within the file). */
  open(range?: ByteRange): Promise<AsyncIterable<Uint8Array>>;
};

type AssetRow = {
  id: string;
  filename_disk: string | null;
  filename_download: string;
  type: string | null;
  filesize: number | string | null;
  width: number | null;
  height: number | null;
  checksum: string | null;
  uploaded_on: string | null;
  modified_on: string | null;
};

const ASSET_FIELDS: ReadonlyArray<keyof AssetRow> = [
  'id',
  'filename_disk',
  'filename_download',
  'type',
  'filesize',
  'width',
  'height',
  'checksum',
  'uploaded_on',
  'modified_on',
];

/**
 * GET /assets/:id: the file's bytes for a caller who may read its row — the row, not its fields: the
 * caller's read rule decides which rows are visible, and a visible file's bytes are served whatever
 * fields of it the caller may read. A file that does not exist, that the caller may not see, whose id is
 * not an id, or that has no bytes is the same 404 (docs/api.md §15).
 */
export class ReadAssetHandler {
  constructor(
    private readonly catalog: SchemaCatalog,
    private readonly rules: ReadRules,
    private readonly items: ItemStore,
    private readonly storage: FileStorage,
    private readonly clock: Clock,
  ) {}

  execute(caller: Accountability, id: string): Promise<Asset> {
    return withFreshSchema(this.catalog, () => this.read(caller, id));
  }

  private async read(caller: Accountability, id: string): Promise<Asset> {
    const files = collectionFor(this.catalog, caller, FILES_COLLECTION, FILES_REACH);
    const rule = await this.rules.for(caller, files, this.clock.now());
    const key = coerceKey(fieldOf(files, files.primaryKey!)!, id);
    if (key === null) throw notFound();
    const select: SelectedField[] = ASSET_FIELDS.map((field) => ({ field, visibleWhen: null }));
    const json = await this.items.get({
      collection: files,
      work: caller.work,
      select,
      visible: rule.rows,
      id: key,
    });
    if (json === null) throw notFound();
    const row = JSON.parse(json) as AssetRow;
    const stored = row.filename_disk === null ? undefined : await this.storage.stat(row.filename_disk);
    if (!stored || row.checksum === null) throw notFound();
    const location = stored.key;
    const changed = row.modified_on ?? row.uploaded_on;
    return {
      id: row.id,
      key: location,
      filename: row.filename_download,
      type: row.type ?? 'application/octet-stream',
      size: stored.size,
      width: row.width,
      height: row.height,
      checksum: row.checksum,
      modifiedAt: changed === null ? null : new Date(changed),
      open: async (range) => {
        const bytes = await this.storage.read(location, range);
        if (!bytes) throw notFound();
        return bytes;
      },
    };
  }
}
