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

/** An answer in the API's own shape, as the HTTP adapter makes it: its JSON type, `Retry-After`… included. */
export type TusAnswer = {
  readonly status_code: number;
  readonly body: string;
  readonly headers: Readonly<Record<string, string>>;
};

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

type TusRequest = {
  readonly caller: Accountability;
  readonly requestId: string;
  /** The headers of the error answer in the API's shape this request will send, once decided. */
  errorHeaders?: Readonly<Record<string, string>>;
};

/**
 * @tus/server writes its error answers (and those `onResponseError` maps) with nothing but the status and a
 * text body; an answer in the API's shape also needs its headers (`Content-Type`, `Retry-After`…), which
 * the request's `errorHeaders` hold. `write` is told only the request's cancellation context, which
 * @tus/server makes (`createContext`) before anything else while it serves a request: `serve` names the
 * request it is about to be made for.
 */
class ApiErrorsTusServer extends Server {
  private readonly requests = new WeakMap<object, TusRequest>();
  private serving: TusRequest | undefined;

  serve(request: TusRequest, req: IncomingMessage, res: ServerResponse): Promise<void> {
    this.serving = request;
    try {
      return this.handle(req, res);
    } finally {
      this.serving = undefined;
    }
  }

  protected override createContext(): ReturnType<Server['createContext']> {
    const context = super.createContext();
    if (this.serving) this.requests.set(context, this.serving);
    this.serving = undefined;
    return context;
  }

  override write(
    ...[context, headers, status, body]: Parameters<Server['write']>
  ): ReturnType<Server['write']> {
    for (const [name, value] of Object.entries(this.requests.get(context)?.errorHeaders ?? {}))
      headers.set(name, value);
    return super.write(context, headers, status, body);
  }
}

/**
 * The request a hook of @tus/server runs for: its hooks get the fetch Request it made of Node's, which keeps
 * Node's as `runtime.node.req` (srvx's Node adapter).
 */
function nodeRequestOf(req: Request): IncomingMessage | undefined {
  return (req as { runtime?: { node?: { req?: IncomingMessage } } }).runtime?.node?.req;
}

/**
 * TUS 1.0 at `/files/tus` (docs/api.md §15, docs/decisions/0041) with @tus/server, for callers already
 * authenticated by the HTTP adapter. Before @tus/server sees a request: a creation's metadata passes every
 * check of POST /files and its `Upload-Length` the size limit (no byte is read otherwise); any other request
 * must name an upload of the caller's that has not expired, or it is 404 like a missing one (an expired one
 * is removed then). When the last byte is in, the file is committed through POST /files's own path, the
 * parts are removed, and the PATCH answers 200 with the file's row.
 */
export class TusResumableUploads {
  private readonly server: ApiErrorsTusServer;
  /** The requests being served, for @tus/server's hooks (`requestOf`). */
  private readonly requests = new WeakMap<IncomingMessage, TusRequest>();
  private nextSweep = 0;

  constructor(private readonly options: TusResumableUploadsOptions) {
    this.server = new ApiErrorsTusServer({
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
      onUploadCreate: async (req, upload) => ({
        metadata: { ...upload.metadata, [OWNER_METADATA]: this.requestOf(req).caller.user },
      }),
      onUploadFinish: async (req, upload) => this.finish(req.method, upload, this.requestOf(req)),
      onResponseError: (req, error) => {
        // @tus/server's own answer to a lock held past the timeout is a 500; it is the caller's to retry.
        if (error === ERRORS.ERR_LOCK_TIMEOUT) return this.failed(uploadLocked(), this.requestOf(req));
        return 'status_code' in error ? undefined : this.failed(error, this.requestOf(req));
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
  async handle(
    caller: Accountability,
    requestId: string,
    req: IncomingMessage,
    res: ServerResponse,
  ): Promise<void> {
    const refusal = protocolRefusal(req);
    if (refusal) {
      res.writeHead(refusal.status, { 'Content-Type': 'text/plain; charset=utf-8', ...refusal.headers });
      res.end(refusal.body);
      return;
    }
    const request: TusRequest = { caller, requestId };
    this.requests.set(req, request);
    if (req.method === 'HEAD' && (await this.finishReceived(uploadIdOf(req.url), res, request))) return;
    await this.server.serve(request, req, res);
  }

  /**
   * Commits an upload that holds every byte but whose file was never committed (the process stopped, or the
   * commit was refused for a while — 423, 503 — after the last byte was stored). A client asks for the
   * offset before it resumes, and an offset equal to the length tells it the upload is done: the file must
   * exist by then. Answers the HEAD itself, as @tus/server would for a finished upload, since the upload is
   * gone once committed; false when the upload is not in that state (@tus/server answers as usual).
   */
  private async finishReceived(
    id: string | undefined,
    res: ServerResponse,
    request: TusRequest,
  ): Promise<boolean> {
    const stored = id === undefined ? undefined : await this.options.store.find(id);
    const size = stored?.upload.size;
    if (!stored || stored.expired || size === undefined || stored.upload.offset !== size) return false;
    try {
      await this.finish('HEAD', stored.upload, request);
    } catch (error) {
      // The error's status and headers (`Retry-After`…); a HEAD answer has no body.
      const { status_code = 500, headers = {} } = error as Partial<TusAnswer>;
      res
        .writeHead(status_code, { ...headers, 'Tus-Resumable': TUS_VERSION, 'Cache-Control': 'no-store' })
        .end();
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
  private async finish(method: string, upload: Upload, request: TusRequest): Promise<Finished> {
    const lock = this.options.locker.newLock(upload.id);
    await lock.lock(new AbortController().signal, () => {});
    let finished: Finished;
    try {
      const stored = await this.options.store.find(upload.id);
      if (stored?.upload.offset !== upload.size) throw ERRORS.FILE_NOT_FOUND;
      finished = await this.commit(upload, request);
    } finally {
      await lock.unlock();
    }
    // The upload is gone: with no creation date @tus/server does not look it up again for its
    // `Upload-Expires`, which would answer the creation 404 once the file is committed.
    delete upload.creation_date;
    return method === 'POST' ? { ...finished, status_code: 201 } : finished;
  }

  private async commit(upload: Upload, request: TusRequest): Promise<Finished> {
    const { caller } = request;
    try {
      const result = await this.options.complete(caller, {
        ...headOf(upload.metadata ?? {}),
        declaredType: upload.metadata?.[FILETYPE] ?? '',
        bytes: this.options.store.bytes(upload.id),
      });
      await this.options.store.remove(upload.id);
      const written = this.options.written(result);
      // A caller who may read none of the file gets no body (204, or a creation's 201), so no type for one.
      const headers: Record<string, string> =
        written.body === '' ? {} : { 'Content-Type': 'application/json; charset=utf-8' };
      return { ...written, headers };
    } catch (error) {
      // A refusal of the finished bytes (their type, a rule on them) stands however often they are sent. An
      // answer that says to try again keeps them, for the HEAD that commits them (`finishReceived`).
      if (error instanceof DomainError && !saysTryAgain(error)) await this.options.store.remove(upload.id);
      throw this.failed(error, request);
    }
  }

  /** The answer in the API's shape to `error`, its headers kept for the answer @tus/server will write. */
  private failed(error: unknown, request: TusRequest): TusAnswer {
    const answer = this.options.failed(error, request.requestId);
    request.errorHeaders = answer.headers;
    return answer;
  }

  /** Removes the expired uploads nobody touched, at most once per interval on this instance. */
  private async sweepIfDue(): Promise<void> {
    const now = this.options.now().getTime();
    if (now < this.nextSweep) return;
    this.nextSweep = now + Math.min(this.options.store.getExpiration(), MAX_SWEEP_INTERVAL_MS);
    await this.options.store.deleteExpired();
  }

  private requestOf(req: Request): TusRequest {
    const node = nodeRequestOf(req);
    const request = node && this.requests.get(node);
    if (!request) throw new Error('A TUS hook ran outside a request');
    return request;
  }
}

/**
 * A failure of the moment rather than of the upload: a database lost or saturated, a caller's share used up
 * (`Retry-After`), another request holding the upload, a statement cut short.
 */
function saysTryAgain(error: DomainError): boolean {
  return (
    error.extensions.retryAfter !== undefined ||
    error.code === 'LOCKED' ||
    error.code === 'QUERY_TOO_EXPENSIVE'
  );
}

/** An answer of the protocol itself, before @tus/server sees the request: plain text, as its own. */
type ProtocolRefusal = { status: number; body: string; headers: Record<string, string> };

/** The one type of a PATCH's body. */
const OFFSET_BYTES = 'application/offset+octet-stream';

/**
 * What TUS 1.0 says to answer before anything is processed, where @tus/server answers otherwise:
 * - a `Tus-Resumable` other than 1.0.0 is 412 with `Tus-Version` (protocol §Tus-Resumable: "MUST respond
 *   with 412 … MUST include the Tus-Version header … MUST NOT process the request"; @tus/server answers an
 *   unknown version 400, and a missing one 412 without `Tus-Version`);
 * - a PATCH or creation with a `Content-Encoding` is 415: @tus/server would store the bytes as sent, still
 *   compressed (or said to be), where a multipart upload with one is refused too;
 * - a PATCH whose body is not `application/offset+octet-stream` is 415 (§PATCH: "SHOULD return a 415";
 *   @tus/server: 403 without a type, 400 with another), one without `Upload-Offset` 400 (@tus/server: 403,
 *   which says the caller may not, not that the request is malformed);
 * - an extension not offered in `Tus-Extension` is 400 (@tus/server answers 501 Not Implemented, which RFC
 *   9110 §15.6.2 keeps for a method the server does not know, and which TUS clients retry; the protocol
 *   names no status for it): `Upload-Defer-Length` at creation, or `Upload-Length` on a PATCH
 *   (creation-defer-length: our uploads declare their length up front); `Upload-Concat` (concatenation);
 *   `Upload-Checksum` (checksum, whose §Checksum says 400 for an algorithm the server does not support:
 *   here, every one). @tus/server ignores a checksum: it would store bytes the client asked to have verified.
 */
function protocolRefusal(req: IncomingMessage): ProtocolRefusal | undefined {
  if (req.method === 'OPTIONS') return undefined;
  const { headers } = req;
  const resumable = { 'Tus-Resumable': TUS_VERSION };
  if (headers['tus-resumable'] !== TUS_VERSION) {
    return {
      status: 412,
      body: `Tus-Resumable: ${TUS_VERSION} is required: it is the one version this server speaks.\n`,
      headers: { ...resumable, 'Tus-Version': TUS_VERSION },
    };
  }
  const refused = (status: number, body: string): ProtocolRefusal => ({ status, body, headers: resumable });
  const unsupported = (extension: string, header: string) =>
    refused(
      400,
      `${header} is not supported: this server does not offer the ${extension} extension (see Tus-Extension).\n`,
    );
  if (req.method === 'PATCH') {
    if (headers['content-type'] !== OFFSET_BYTES) {
      return refused(415, `The bytes of a PATCH are sent as Content-Type: ${OFFSET_BYTES}.\n`);
    }
    if (headers['upload-offset'] === undefined) {
      return refused(400, 'A PATCH names the offset its bytes start at in Upload-Offset.\n');
    }
    if (headers['upload-length'] !== undefined) {
      return unsupported('creation-defer-length', 'Upload-Length on a PATCH');
    }
  }
  if (req.method === 'POST' && headers['upload-defer-length'] !== undefined) {
    return unsupported('creation-defer-length', 'Upload-Defer-Length');
  }
  if (req.method === 'POST' && headers['upload-concat'] !== undefined) {
    return unsupported('concatenation', 'Upload-Concat');
  }
  if ((req.method === 'PATCH' || req.method === 'POST') && headers['upload-checksum'] !== undefined) {
    return unsupported('checksum', 'Upload-Checksum');
  }
  const encoding = headers['content-encoding']?.trim().toLowerCase();
  if ((req.method === 'PATCH' || req.method === 'POST') && encoding && encoding !== 'identity') {
    return refused(415, "An upload's bytes are sent without Content-Encoding: they are stored as sent.\n");
  }
  return undefined;
}

function parsedMetadata(header: string | string[] | undefined): Record<string, string | null> {
  if (header === undefined) return {};
  let metadata: Record<string, string | null>;
  try {
    if (typeof header !== 'string') throw new Error('Upload-Metadata sent more than once');
    metadata = Metadata.parse(header);
  } catch {
    throw invalidPayload('Upload-Metadata must be TUS metadata: comma-separated keys with base64 values.');
  }
  assertUtf8Values(header);
  return metadata;
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Metadata.parse decodes each value leniently, turning bytes that are not UTF-8 (an encoded lone surrogate
 * among them) into U+FFFD: docs/api.md §4a refuses such text rather than store it altered. A NUL is refused
 * as in a multipart form field, naming the key (it was a FAILED_VALIDATION of the column). `header` has
 * passed Metadata.parse: comma-separated `key base64` pairs.
 */
function assertUtf8Values(header: string): void {
  for (const pair of header.split(',')) {
    const [key, value] = pair.split(' ');
    if (value === undefined) continue;
    let text: string;
    try {
      text = UTF8.decode(Buffer.from(value, 'base64'));
    } catch {
      throw invalidPayload(`The Upload-Metadata value of "${key}" is not UTF-8 text.`, key);
    }
    if (text.includes('\u0000')) {
      throw invalidPayload(`The Upload-Metadata value of "${key}" contains a NUL character.`, key);
    }
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
