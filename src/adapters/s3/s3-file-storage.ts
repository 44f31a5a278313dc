import { Readable } from 'node:stream';
import {
  CopyObjectCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  S3Client,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import type { ByteRange, FileStorage, StoredObject } from '../../application/ports/file-storage.ts';
import { assertStorageKey, assertStoragePrefix } from '../storage-key.ts';

/**
 * A multipart upload's part (S3's smallest but for the last) and how many are sent at once: the upload
 * holds about (queue + 1) parts in memory whatever the file's size (docs/decisions/0038). S3 takes at
 * most 10,000 parts, so objects up to about 48 GiB.
 */
const PART_BYTES = 5 * 1024 * 1024;
const PARTS_IN_FLIGHT = 2;
/** S3's own largest page. */
const LIST_PAGE_SIZE = 1000;

export type S3FileStorageOptions = {
  readonly bucket: string;
  readonly region: string;
  /** An S3-compatible service's URL (MinIO, R2, a test server); unset, AWS's for the region. */
  readonly endpoint?: string;
  /** `<endpoint>/<bucket>/<key>` rather than `<bucket>.<endpoint>/<key>`, as most compatible services want. */
  readonly forcePathStyle?: boolean;
  /** Unset, the SDK's own chain (AWS_* variables, shared files, the instance's role). */
  readonly credentials?: { readonly accessKeyId: string; readonly secretAccessKey: string };
  /** Objects per ListObjectsV2 request (tests make it small to cross pages). */
  readonly listPageSize?: number;
};

/**
 * The storage port in an S3 bucket (`storage.driver: s3`). Writes stream through `@aws-sdk/lib-storage`'s
 * multipart `Upload` in bounded parts; S3 shows an object only once its upload completes, so a failed
 * write leaves what the key held, and the parts sent are aborted. Reads are one `GetObject` (with
 * `Range`), streamed as the caller consumes it. A move is a copy then a delete: S3 has no rename, so a
 * process that dies between the two leaves both keys, and a single copy takes objects up to 5 GB.
 */
export class S3FileStorage implements FileStorage {
  private readonly client: S3Client;
  private readonly bucket: string;
  private readonly listPageSize: number;

  constructor(options: S3FileStorageOptions) {
    this.bucket = options.bucket;
    this.listPageSize = options.listPageSize ?? LIST_PAGE_SIZE;
    this.client = new S3Client({
      region: options.region,
      ...(options.endpoint ? { endpoint: options.endpoint } : {}),
      forcePathStyle: options.forcePathStyle ?? false,
      ...(options.credentials ? { credentials: options.credentials } : {}),
      // Checksums only where S3 demands them: compatible services (and older S3 clones) refuse the
      // trailing checksums the SDK otherwise adds to every upload, and the parts are sent over TLS anyway.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
  }

  async write(key: string, bytes: AsyncIterable<Uint8Array>): Promise<StoredObject> {
    assertStorageKey(key);
    // lib-storage may wrap or replace the error of the bytes; the port promises that very error.
    const failure: { error?: unknown } = {};
    const upload = new Upload({
      client: this.client,
      params: { Bucket: this.bucket, Key: key, Body: Readable.from(recordingFailure(bytes, failure)) },
      partSize: PART_BYTES,
      queueSize: PARTS_IN_FLIGHT,
      leavePartsOnError: false,
    });
    try {
      await upload.done();
    } catch (error) {
      throw 'error' in failure ? failure.error : error;
    }
    const written = await this.stat(key);
    if (!written) throw new Error(`S3 does not show "${key}" after its upload completed`);
    return written;
  }

  async read(key: string, range?: ByteRange): Promise<AsyncIterable<Uint8Array> | undefined> {
    assertStorageKey(key);
    try {
      const answer = await this.client.send(
        new GetObjectCommand({
          Bucket: this.bucket,
          Key: key,
          ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}),
        }),
      );
      const body = answer.Body;
      if (!(body instanceof Readable)) throw new Error(`S3 answered "${key}" with no stream`);
      if (!range) return body;
      const served = firstByteServed(answer.ContentRange);
      const sameRange = answer.ContentRange?.startsWith(`bytes ${range.start}-${range.end}/`);
      return sameRange ? body : cut(body, range.start - served, range.end - range.start + 1);
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  async stat(key: string): Promise<StoredObject | undefined> {
    assertStorageKey(key);
    try {
      const head = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }));
      return { key, size: head.ContentLength ?? 0, modifiedAt: head.LastModified ?? new Date(0) };
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  async move(from: string, to: string): Promise<void> {
    assertStorageKey(from);
    assertStorageKey(to);
    try {
      // Keys are URL-safe as they are (storage-key.ts), so the source needs no escaping.
      await this.client.send(
        new CopyObjectCommand({ Bucket: this.bucket, Key: to, CopySource: `${this.bucket}/${from}` }),
      );
    } catch (error) {
      if (isNotFound(error)) throw new Error(`No object "${from}" to move`);
      throw error;
    }
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: from }));
  }

  async delete(key: string): Promise<void> {
    assertStorageKey(key);
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
  }

  async *list(prefix: string): AsyncIterable<StoredObject> {
    assertStoragePrefix(prefix);
    let continuation: string | undefined;
    do {
      const page = await this.client.send(
        new ListObjectsV2Command({
          Bucket: this.bucket,
          Prefix: prefix,
          MaxKeys: this.listPageSize,
          ...(continuation ? { ContinuationToken: continuation } : {}),
        }),
      );
      for (const object of page.Contents ?? []) {
        if (object.Key === undefined) continue;
        yield { key: object.Key, size: object.Size ?? 0, modifiedAt: object.LastModified ?? new Date(0) };
      }
      continuation = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (continuation);
  }

  /** Ends the client's connections. */
  close(): void {
    this.client.destroy();
  }
}

/** Where the body's bytes start in the object: the `Content-Range`'s first byte, 0 for a whole object. */
function firstByteServed(contentRange: string | undefined): number {
  const start = contentRange?.match(/^bytes (\d+)-/)?.[1];
  return start === undefined ? 0 : Number(start);
}

/**
 * The `length` bytes after the first `skip` of a body that holds more than the range asked for: HTTP lets
 * a server answer a range with the whole object, and some S3-compatible servers answer `bytes=0-0` so.
 */
async function* cut(body: Readable, skip: number, length: number): AsyncIterable<Uint8Array> {
  if (skip < 0) throw new Error('S3 answered a range that starts after the one asked for');
  let position = 0;
  try {
    for await (const chunk of body as AsyncIterable<Uint8Array>) {
      const from = Math.max(0, skip - position);
      const to = Math.min(chunk.byteLength, skip + length - position);
      position += chunk.byteLength;
      if (from < to) yield chunk.subarray(from, to);
      if (position >= skip + length) return;
    }
  } finally {
    body.destroy();
  }
}

async function* recordingFailure(
  bytes: AsyncIterable<Uint8Array>,
  failure: { error?: unknown },
): AsyncIterable<Uint8Array> {
  try {
    yield* bytes;
  } catch (error) {
    failure.error = error;
    throw error;
  }
}

/**
 * `NoSuchKey` from GetObject and CopyObject; `NotFound`, the SDK's name for HeadObject's bare 404. A
 * missing bucket (`NoSuchBucket`) is a configuration error, not a missing object.
 */
function isNotFound(error: unknown): boolean {
  const name = (error as { name?: string }).name;
  return name === 'NoSuchKey' || name === 'NotFound';
}
