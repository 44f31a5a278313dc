import type { Readable } from 'node:stream';
import { DataStore, ERRORS, Upload } from '@tus/server';
import type { Clock } from '../../application/ports/clock.ts';
import type { FileStorage } from '../../application/ports/file-storage.ts';
import type { UnfinishedUploads } from '../../application/ports/unfinished-uploads.ts';
import { tooManyUploads } from '../../domain/files/upload-refusals.ts';

/** Where every resumable upload's keys live; the only folder this store writes. */
const UPLOADS_PREFIX = 'tus/';

/** Digits of a part's offset in its key, so that the parts' keys sort as their offsets do (up to 10^16 bytes). */
const OFFSET_DIGITS = 16;

/** The description of an upload kept under `tus/<id>/upload`; its offset is the sum of its parts. */
type UploadRecord = {
  readonly id: string;
  readonly size: number | null;
  readonly metadata: Record<string, string | null>;
  readonly creationDate: string;
  /** The user who created it: only they may continue it. */
  readonly owner: string;
};

/** How many unfinished uploads a user may have (`storage.tus.maxUnfinished`), and where they are counted. */
export type UnfinishedUploadsLimit = { readonly uploads: UnfinishedUploads; readonly max: number };

/** A resumable upload as the store knows it. */
export type StoredUpload = { readonly upload: Upload; readonly owner: string; readonly expired: boolean };

/**
 * The TUS data store (@tus/server's DataStore) over the file storage port, so that an upload begun on one
 * instance is continued on any other that shares the store (docs/decisions/0041). Each PATCH's bytes are one
 * object, `tus/<id>/parts/<offset>`, written as they arrive: a request cut short keeps what reached it, and
 * the next one starts where it ended. The upload's offset is the sum of its parts, so no second record can
 * disagree with them; `bytes` reads them back in order as one stream.
 *
 * `create` takes the owner from the metadata entry named OWNER_METADATA (which the server, not the client,
 * sets) and keeps it apart: `getUpload` never shows it. It counts the upload among its owner's unfinished
 * ones first, refusing it over the limit before anything is stored; `remove` (a finish, a termination, an
 * expiry) counts it out.
 */
export class FileStorageTusStore extends DataStore {
  constructor(
    private readonly storage: FileStorage,
    private readonly clock: Clock,
    private readonly expiryMs: number,
    private readonly limit: UnfinishedUploadsLimit,
  ) {
    super();
    this.extensions = ['creation', 'creation-with-upload', 'termination', 'expiration'];
  }

  override async create(upload: Upload): Promise<Upload> {
    const { [OWNER_METADATA]: owner, ...metadata } = upload.metadata ?? {};
    if (!owner) throw new Error('A resumable upload is created for a user');
    const now = this.clock.now();
    const opening = await this.limit.uploads.open(
      { id: upload.id, owner, createdAt: now },
      this.limit.max,
      new Date(now.getTime() - this.expiryMs),
    );
    if (!opening.opened) {
      const freesAt = opening.oldest.getTime() + this.expiryMs;
      throw tooManyUploads(this.limit.max, (freesAt - now.getTime()) / 1000);
    }
    const creationDate = now.toISOString();
    const record: UploadRecord = { id: upload.id, size: upload.size ?? null, metadata, creationDate, owner };
    try {
      await this.storage.write(recordKey(upload.id), once(Buffer.from(JSON.stringify(record))));
    } catch (error) {
      await this.limit.uploads.close(upload.id);
      throw error;
    }
    upload.metadata = metadata;
    upload.creation_date = creationDate;
    return upload;
  }

  override async write(stream: Readable, id: string, offset: number): Promise<number> {
    const part = await this.storage.write(partKey(id, offset), stream);
    return offset + part.size;
  }

  override async getUpload(id: string): Promise<Upload> {
    const stored = await this.find(id);
    if (!stored) throw ERRORS.FILE_NOT_FOUND;
    return stored.upload;
  }

  override async remove(id: string): Promise<void> {
    const keys: string[] = [];
    for await (const object of this.storage.list(folder(id))) keys.push(object.key);
    for (const key of keys) await this.storage.delete(key);
    await this.limit.uploads.close(id);
  }

  override getExpiration(): number {
    return this.expiryMs;
  }

  override async deleteExpired(): Promise<number> {
    const expired: string[] = [];
    for await (const object of this.storage.list(UPLOADS_PREFIX)) {
      if (!object.key.endsWith(RECORD_SUFFIX)) continue;
      const id = object.key.slice(UPLOADS_PREFIX.length, -RECORD_SUFFIX.length);
      if ((await this.find(id))?.expired) expired.push(id);
    }
    for (const id of expired) await this.remove(id);
    return expired.length;
  }

  /** The upload, who created it and whether it has expired; undefined when there is none. */
  async find(id: string): Promise<StoredUpload | undefined> {
    const bytes = await this.storage.read(recordKey(id));
    if (!bytes) return undefined;
    const record = JSON.parse(await text(bytes)) as UploadRecord;
    let offset = 0;
    for await (const part of this.storage.list(partsFolder(id))) offset += part.size;
    const upload = new Upload({
      id,
      offset,
      metadata: record.metadata,
      creation_date: record.creationDate,
      ...(record.size === null ? {} : { size: record.size }),
    });
    const expired = this.clock.now().getTime() > Date.parse(record.creationDate) + this.expiryMs;
    return { upload, owner: record.owner, expired };
  }

  /** The upload's bytes, its parts one after the other, read as they are consumed. */
  async *bytes(id: string): AsyncGenerator<Uint8Array> {
    for await (const part of this.storage.list(partsFolder(id))) {
      const bytes = await this.storage.read(part.key);
      if (!bytes) throw new Error(`A part of upload ${id} went missing`);
      yield* bytes;
    }
  }
}

/**
 * The metadata entry through which the server hands the upload's owner to `create`; a TUS metadata key
 * may hold a colon, a field's name may not, so no client field can be mistaken for it.
 */
export const OWNER_METADATA = 'datagate:owner';

const RECORD_SUFFIX = '/upload';

function folder(id: string): string {
  return `${UPLOADS_PREFIX}${id}/`;
}

function recordKey(id: string): string {
  return `${UPLOADS_PREFIX}${id}${RECORD_SUFFIX}`;
}

function partsFolder(id: string): string {
  return `${folder(id)}parts/`;
}

function partKey(id: string, offset: number): string {
  return `${partsFolder(id)}${String(offset).padStart(OFFSET_DIGITS, '0')}`;
}

async function* once(bytes: Uint8Array): AsyncGenerator<Uint8Array> {
  yield bytes;
}

async function text(bytes: AsyncIterable<Uint8Array>): Promise<string> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of bytes) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}
