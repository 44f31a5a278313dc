import { randomUUID } from 'node:crypto';
import { notFound } from '../../domain/errors.ts';
import type { Clock } from '../ports/clock.ts';
import type { ByteRange, FileStorage, StoredObject } from '../ports/file-storage.ts';
import type { ImageTransformer } from '../ports/image-transformer.ts';
import { variantsPrefix } from './file-keys.ts';
import { imageTooLarge, unsupportedImage } from './image-refusals.ts';
import {
  type AssetQuery,
  type ImageTransform,
  type ImageTransformSettings,
  imageType,
  isTransformable,
  parseImageTransform,
  resolveImageTransform,
  variantDigest,
  variesWithAccept,
} from './image-transform.ts';
import { TransformQueue, type TransformQueueSettings } from './transform-queue.ts';

/** The file row's facts a variant depends on; the caller has already checked the right to read it. */
export type ImageFile = {
  readonly id: string;
  /** Where the original's bytes are stored. */
  readonly key: string;
  /** The original's media type, as stored with the file. */
  readonly type: string | null;
  /** The original's size in pixels, when known: one over `maxPixels` is refused without reading it. */
  readonly width?: number | null;
  readonly height?: number | null;
  /**
   * What changes whenever the bytes do, so that a variant of the old bytes is never served; with
   * neither, the stored original's modification time is asked of the store.
   */
  readonly checksum?: string | null;
  readonly modifiedOn?: Date | null;
};

/** A variant, stored: what an `/assets` answer needs. */
export type ImageVariant = {
  readonly type: string;
  /** In bytes. */
  readonly size: number;
  /** A strong ETag, quoted: the variant's digest. */
  readonly etag: string;
  /** `format=auto`: the answer depends on `Accept`, which the HTTP layer names in `Vary`. */
  readonly variesWithAccept: boolean;
  /** The variant's bytes, or a range of them, read as consumed. */
  read(range?: ByteRange): Promise<AsyncIterable<Uint8Array>>;
};

export type ImageVariantSettings = ImageTransformSettings &
  TransformQueueSettings & {
    /** Largest original, in pixels, a variant is made of (`storage.transforms.maxPixels`). */
    readonly maxPixels: number;
  };

/**
 * The one entry `/assets/:id` calls for a transformed image (docs/api.md §15, decision 0039). A variant
 * is made once and kept in the store under `variants/<id>/<digest>`; the next request for it is a read.
 * A missing one is made in the bounded `TransformQueue`, written under `tmp/` and moved into place, so a
 * reader never sees half a variant; requests for the same missing variant wait for the one transform.
 * Variants leave the store with their file, through `FileBytes` (its bytes replaced or its row deleted).
 */
export class ImageVariants {
  /** Transforms queued or running, by variant key: at most `concurrency + queue` entries. */
  private readonly inFlight = new Map<string, Promise<StoredObject>>();
  private readonly queue: TransformQueue;

  constructor(
    private readonly storage: FileStorage,
    private readonly transformer: ImageTransformer,
    private readonly settings: ImageVariantSettings,
    clock: Clock,
  ) {
    this.queue = new TransformQueue(settings, clock);
  }

  /**
   * The variant `query` asks for, made if needed; undefined when the query asks for no transform (serve
   * the original). `accept` is the request's `Accept`, for `format=auto`. Refusals: 400 INVALID_QUERY
   * (a bad parameter; `UNSUPPORTED_IMAGE`; `IMAGE_TOO_LARGE`), 503 SERVICE_UNAVAILABLE `TRANSFORMS_BUSY`
   * with `retryAfter`, 404 NOT_FOUND when the original's bytes are gone.
   */
  async open(
    file: ImageFile,
    query: AssetQuery,
    accept: string | undefined,
  ): Promise<ImageVariant | undefined> {
    const request = parseImageTransform(query, this.settings);
    if (!request) return undefined;
    if (!file.type || !isTransformable(file.type)) throw unsupportedImage();
    if (file.width && file.height && file.width * file.height > this.settings.maxPixels) {
      throw imageTooLarge(
        `The image has ${file.width} × ${file.height} pixels, over the ${this.settings.maxPixels} a transform may read.`,
      );
    }
    const transform = resolveImageTransform(request, file.type, accept);
    const digest = variantDigest(transform, await this.sourceVersion(file));
    const key = `${variantsPrefix(file.id)}${digest}`;
    const stored = (await this.storage.stat(key)) ?? (await this.made(file, transform, key));
    return {
      type: imageType(transform.format),
      size: stored.size,
      etag: `"${digest}"`,
      variesWithAccept: variesWithAccept(request),
      read: async (range) => {
        const bytes = await this.storage.read(key, range);
        if (!bytes) throw notFound('File');
        return bytes;
      },
    };
  }

  private async sourceVersion(file: ImageFile): Promise<string> {
    const version = file.checksum ?? file.modifiedOn?.toISOString();
    if (version) return `${file.key}\n${version}`;
    const original = await this.storage.stat(file.key);
    if (!original) throw notFound('File');
    return `${file.key}\n${original.modifiedAt.toISOString()}\n${original.size}`;
  }

  private made(file: ImageFile, transform: ImageTransform, key: string): Promise<StoredObject> {
    const running = this.inFlight.get(key);
    if (running) return running;
    const job = this.queue
      .run(() => this.make(file, transform, key))
      .finally(() => {
        if (this.inFlight.get(key) === job) this.inFlight.delete(key);
      });
    this.inFlight.set(key, job);
    return job;
  }

  private async make(file: ImageFile, transform: ImageTransform, key: string): Promise<StoredObject> {
    // Another instance, or a request that just finished, may have made it while this one waited.
    const made = await this.storage.stat(key);
    if (made) return made;
    const source = await this.storage.read(file.key);
    if (!source) throw notFound('File');
    const temporary = `tmp/${randomUUID()}`;
    const written = await this.storage.write(temporary, this.transformer.transform(source, transform));
    try {
      await this.storage.move(temporary, key);
    } catch (error) {
      await this.storage.delete(temporary);
      throw error;
    }
    return { ...written, key };
  }
}
