import { AsyncLocalStorage } from 'node:async_hooks';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ERRORS, type Locker, Metadata, Server, type Upload } from '@tus/server';
import { requireUser } from '../../application/access.ts';
import type { FileUpload, FileUploadHead } from '../../application/files/file-upload.ts';
import type { WriteResult } from '../../application/items/write-result.ts';
import type { Accountability } from '../../domain/accountability.ts';
import { DomainError, invalidPayload, notFound } from '../../domain/errors.ts';
import { contentTooLarge, uploadLocked } from '../../domain/files/upload-refusals.ts';
import { type FileStorageTusStore, OWNER_METADATA } from './file-storage-tus-store.ts';

/** Metadata entries that describe the file rather than set a field of its row. */
const FILENAME = 'filename';
const FILETYPE = 'filetype';

/** An upload id as @tus/server makes them (16 random bytes in hex); any other answers 404 untouched. */
const UPLOAD_ID = /^[0-9a-f]{32}$/;

/** The longest a sweep of expired uploads waits for the next one, whatever the expiry. */
const MAX_SWEEP_INTERVAL_MS = 60 * 60 * 1000;

/** An answer in the API's own shape, as the HTTP adapter makes it. */
export type TusAnswer = { readonly status_code: number; readonly body: string };

export type TusResumableUploadsOptions = {
  /** Where the uploads are served, `/files/tus`. */
  readonly path: string;
  readonly store: FileStorageTusStore;
  readonly locker: Locker;
  /** `storage.maxUploadSize`, checked against `Upload-Length` at creation. */
  readonly maxUploadSize: number;
  /** The checks of a new file's row that need no byte (UploadFilesHandler.admit). */
  admit(caller: Accountability, head: FileUploadHead): Promise<void>;
  /** Commits the file as POST /files does (UploadFilesHandler.execute), bytes sniffed, hashed and moved. */
  complete(caller: Accountability, upload: FileUpload): Promise<WriteResult>;
  /** The answer of a write, as POST /files gives it (the profile's envelope included). */
  written(result: WriteResult): { status_code: number; body: string };
  /** The contract's error answer for anything thrown while completing (logged when unexpected). */
  failed(error: unknown, requestId: string): TusAnswer;
  readonly now: () => Date;
};

/** The answer of the PATCH (or creation-with-upload POST) that brings the last byte. */
type Finished = { status_code: number; body: string; headers: Record<string, string> };

/** The protocol version every TUS answer names. */
const TUS_VERSION = '1.0.0';

type TusRequest = { readonly caller: Accountability; readonly requestId: string };

/**
 * TUS 1.0 at `/files/tus` (docs/api.md §15, docs/decisions/0041) with @tus/server, for callers already
 * authenticated by the HTTP adapter. Before @tus/server sees a request: a creation's metadata passes every
 * check of POST /files and its `Upload-Length` the size limit (no byte is read otherwise); any other request
 * must name an upload of the caller's that has not expired, or it is 404 like a missing one (an expired one
 * is removed then). When the last byte is in, the file is committed through POST /files's own path, the
 * parts are removed, and the PATCH answers 200 with the file's row.
 */
export class TusResumableUploads {
  private readonly server: Server;
  private readonly requests = new AsyncLocalStorage<TusRequest>();
  private nextSweep = 0;

  constructor(private readonly options: TusResumableUploadsOptions) {
    this.server = new Server({
      path: options.path,
      datastore: options.store,
      locker: options.locker,
      maxSize: options.maxUploadSize,
      relativeLocation: true,
      // The id the owner was checked for (`accept`), never another reading of the URL: the last segment of
      // the whole URL, query string included, would name no upload, and no valid storage key either.
      getFileIdFromRequest: (req) => uploadIdOf(req.url),
      // CORS is the app's (`http.cors`), set before the route runs; @tus/server would allow every origin.
      allowedOrigins: () => false,
      onUploadCreate: async (_req, upload) => ({
        metadata: { ...upload.metadata, [OWNER_METADATA]: this.current().caller.user },
      }),
      onUploadFinish: async (req, upload) => this.finish(req.method, upload),
      onResponseError: (_req, error) => {
        // @tus/server's own answer to a lock held past the timeout is a 500; it is the caller's to retry.
        if (error === ERRORS.ERR_LOCK_TIMEOUT)
          return options.failed(uploadLocked(), this.current().requestId);
        return 'status_code' in error ? undefined : options.failed(error, this.current().requestId);
      },
    });
  }

  /**
   * The checks a request passes before @tus/server sees it, thrown as DomainErrors for the HTTP adapter to
   * answer: a user (not the public caller, nor a role preview) on every request but OPTIONS, then `admit` or
   * `checkOwner`.
   */
  async accept(caller: Accountability, req: IncomingMessage): Promise<void> {
    if (req.method === 'OPTIONS') return;
    requireUser(caller);
    if (req.method === 'POST') await this.admit(caller, req);
    else await this.checkOwner(caller, uploadIdOf(req.url));
  }

  /** Serves an accepted request to the end, answer included. */
  handle(
    caller: Accountability,
    requestId: string,
    req: IncomingMessage,
    res: ServerResponse,
  ): Promise<void> {
    return this.requests.run({ caller, requestId }, async () => {
      if (req.method === 'HEAD' && (await this.finishReceived(uploadIdOf(req.url), res))) return;
      await this.server.handle(req, res);
    });
  }

  /**
   * Commits an upload that holds every byte but whose file was never committed (the process stopped, or the
   * commit was refused for a while — 423, 503 — after the last byte was stored). A client asks for the
   * offset before it resumes, and an offset equal to the length tells it the upload is done: the file must
   * exist by then. Answers the HEAD itself, as @tus/server would for a finished upload, since the upload is
   * gone once committed; false when the upload is not in that state (@tus/server answers as usual).
   */
  private async finishReceived(id: string | undefined, res: ServerResponse): Promise<boolean> {
    const stored = id === undefined ? undefined : await this.options.store.find(id);
    const size = stored?.upload.size;
    if (!stored || stored.expired || size === undefined || stored.upload.offset !== size) return false;
    try {
      await this.finish('HEAD', stored.upload);
    } catch (error) {
      const status = (error as Partial<Finished>).status_code ?? 500;
      res.writeHead(status, { 'Tus-Resumable': TUS_VERSION, 'Cache-Control': 'no-store' }).end();
      return true;
    }
    res
      .writeHead(200, {
        'Tus-Resumable': TUS_VERSION,
        'Upload-Offset': String(size),
        'Upload-Length': String(size),
        'Cache-Control': 'no-store',
      })
      .end();
    return true;
  }

  private async admit(caller: Accountability, req: IncomingMessage): Promise<void> {
    const length = Number(req.headers['upload-length']);
    if (Number.isSafeInteger(length) && length > this.options.maxUploadSize) {
      throw contentTooLarge(this.options.maxUploadSize);
    }
    await this.options.admit(caller, headOf(parsedMetadata(req.headers['upload-metadata'])));
    await this.sweepIfDue();
  }

  private async checkOwner(caller: Accountability, id: string | undefined): Promise<void> {
    const stored = id === undefined ? undefined : await this.options.store.find(id);
    if (stored?.expired) await this.options.store.remove(id!);
    if (!stored || stored.expired || stored.owner !== caller.user) throw notFound('Upload');
  }

  /**
   * Commits the file under the upload's lock (@tus/server releases it before this hook), so that a final
   * PATCH sent again while the first commits finds the upload gone rather than committing it twice. A
   * creation that brings every byte (`Upload-Length: 0`, or creation-with-upload) answers 201, so that
   * @tus/server still gives the `Location` a client requires of a creation.
   */
  private async finish(method: string, upload: Upload): Promise<Finished> {
    const lock = this.options.locker.newLock(upload.id);
    await lock.lock(new AbortController().signal, () => {});
    let finished: Finished;
    try {
      const stored = await this.options.store.find(upload.id);
      if (stored?.upload.offset !== upload.size) throw ERRORS.FILE_NOT_FOUND;
      finished = await this.commit(upload);
    } finally {
      await lock.unlock();
    }
    // The upload is gone: with no creation date @tus/server does not look it up again for its
    // `Upload-Expires`, which would answer the creation 404 once the file is committed.
    delete upload.creation_date;
    return method === 'POST' ? { ...finished, status_code: 201 } : finished;
  }

  private async commit(upload: Upload): Promise<Finished> {
    const { caller, requestId } = this.current();
    try {
      const result = await this.options.complete(caller, {
        ...headOf(upload.metadata ?? {}),
        declaredType: upload.metadata?.[FILETYPE] ?? '',
        bytes: this.options.store.bytes(upload.id),
      });
      await this.options.store.remove(upload.id);
      return {
        ...this.options.written(result),
        headers: { 'Content-Type': 'application/json; charset=utf-8' },
      };
    } catch (error) {
      // A refusal of the finished bytes (their type, a rule on them) stands however often they are sent.
      if (error instanceof DomainError) await this.options.store.remove(upload.id);
      throw this.options.failed(error, requestId);
    }
  }

  /** Removes the expired uploads nobody touched, at most once per interval on this instance. */
  private async sweepIfDue(): Promise<void> {
    const now = this.options.now().getTime();
    if (now < this.nextSweep) return;
    this.nextSweep = now + Math.min(this.options.store.getExpiration(), MAX_SWEEP_INTERVAL_MS);
    await this.options.store.deleteExpired();
  }

  private current(): TusRequest {
    const request = this.requests.getStore();
    if (!request) throw new Error('A TUS hook ran outside a request');
    return request;
  }
}

function parsedMetadata(header: string | string[] | undefined): Record<string, string | null> {
  if (header === undefined) return {};
  try {
    if (typeof header !== 'string') throw new Error('Upload-Metadata sent more than once');
    return Metadata.parse(header);
  } catch {
    throw invalidPayload('Upload-Metadata must be TUS metadata: comma-separated keys with base64 values.');
  }
}

/** The file's name and its row's fields from the upload's metadata; a key with no value is empty text. */
function headOf(metadata: Record<string, string | null>): FileUploadHead {
  const fields: Record<string, string> = Object.create(null);
  for (const [name, value] of Object.entries(metadata)) {
    if (name !== FILENAME && name !== FILETYPE) fields[name] = value ?? '';
  }
  return { fields, filename: metadata[FILENAME] ?? '' };
}

/** The upload a request's URL (a path, or a whole URL) names, from its path alone. */
function uploadIdOf(url: string | undefined): string | undefined {
  const last = new URL(url ?? '/', 'http://localhost').pathname.split('/').pop();
  return last !== undefined && UPLOAD_ID.test(last) ? last : undefined;
}
