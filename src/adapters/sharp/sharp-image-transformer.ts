import { fileTypeFromBuffer } from 'file-type';
import sharp, { type Metadata } from 'sharp';
import { imageTooLarge, unsupportedImage } from '../../application/files/image-refusals.ts';
import {
  type ImageTransform,
  isTransformable,
  type Size,
  variantSize,
} from '../../application/files/image-transform.ts';
import type { ImageTransformer } from '../../application/ports/image-transformer.ts';
import { DomainError } from '../../domain/errors.ts';
import { HEAD_BYTES } from './image-head-bytes.ts';

export type SharpImageTransformerSettings = {
  /** Largest original, in pixels, that is decoded (`storage.transforms.maxPixels`). */
  readonly maxPixels: number;
  /** Largest width or height of a variant (`storage.transforms.maxDimension`). */
  readonly maxDimension: number;
};

/** libvips' names of the loaders of the transformable types (AVIF is a HEIF container). */
const DECODED_FORMATS = new Set(['jpeg', 'png', 'webp', 'heif', 'tiff', 'gif']);

/**
 * Image variants with sharp (libvips). The original is read as a stream; its type is sniffed from its
 * first bytes (file-type) and its size read from its header (`metadata()`, which decodes no pixel), and
 * only an image of a transformable type within `maxPixels`, whose variant stays within `maxDimension`,
 * reaches the decoder, which enforces `maxPixels` again (`limitInputPixels`). sharp buffers an input
 * stream whole before decoding, so an original costs its size in memory while it is transformed.
 */
export class SharpImageTransformer implements ImageTransformer {
  readonly headerBytes = HEAD_BYTES;

  constructor(private readonly settings: SharpImageTransformerSettings) {
    // Parallelism comes from the transform queue (one transform per core): a libvips thread pool per
    // transform on top would only oversubscribe the cores. No operation cache: variants are stored.
    sharp.concurrency(1);
    sharp.cache(false);
  }

  async dimensions(head: Uint8Array): Promise<Size | undefined> {
    const header = await headerOf(Buffer.from(head.buffer, head.byteOffset, head.byteLength));
    return header && DECODED_FORMATS.has(header.format) ? displayed(header) : undefined;
  }

  async *transform(source: AsyncIterable<Uint8Array>, transform: ImageTransform): AsyncIterable<Uint8Array> {
    const iterator = source[Symbol.asyncIterator]();
    try {
      const head = await readUpTo(iterator, HEAD_BYTES);
      const sniffed = await fileTypeFromBuffer(head.bytes);
      if (!isTransformable(sniffed?.mime)) throw unsupportedImage();
      let input = head.bytes;
      let whole = head.ended;
      const readAll = async () => {
        if (whole) return;
        input = Buffer.concat([input, (await readUpTo(iterator, Number.POSITIVE_INFINITY)).bytes]);
        whole = true;
      };
      let header = await headerOf(input);
      if (!header && !whole) {
        await readAll();
        header = await headerOf(input);
      }
      if (!header || !DECODED_FORMATS.has(header.format)) throw unsupportedImage();
      this.check(header);
      await readAll();
      yield* this.encoded(input, transform, displayed(header));
    } finally {
      await iterator.return?.();
    }
  }

  private check(header: Metadata): void {
    const pixels = header.width * (header.pageHeight ?? header.height);
    if (pixels > this.settings.maxPixels) {
      throw imageTooLarge(
        `The image declares ${header.width} × ${header.pageHeight ?? header.height} pixels, over the ${this.settings.maxPixels} a transform may read.`,
      );
    }
  }

  private async *encoded(input: Buffer, transform: ImageTransform, source: Size): AsyncIterable<Uint8Array> {
    const size = variantSize(source, transform);
    const { maxDimension } = this.settings;
    if (size.width > maxDimension || size.height > maxDimension) {
      throw imageTooLarge(
        `The variant would be ${size.width} × ${size.height} pixels, over the largest side of ${maxDimension}.`,
        parameterToLower(transform, size.width > maxDimension ? 'width' : 'height'),
      );
    }
    let pipeline = sharp(input, {
      limitInputPixels: this.settings.maxPixels,
      sequentialRead: true,
      failOn: 'warning',
    }).autoOrient();
    if (transform.width !== undefined || transform.height !== undefined) {
      pipeline = pipeline.resize({
        width: transform.width,
        height: transform.height,
        fit: transform.fit,
        withoutEnlargement: transform.withoutEnlargement ?? false,
      });
    }
    // No `withMetadata()`: the variant carries no EXIF, XMP or ICC profile of the original (converted to sRGB).
    pipeline = pipeline.toFormat(transform.format, { quality: transform.quality });
    try {
      yield* pipeline;
    } catch (error) {
      // libvips refuses bytes it cannot decode (truncated, corrupt) only once it reaches them.
      throw error instanceof DomainError ? error : unsupportedImage();
    }
  }
}

type Head = { readonly bytes: Buffer; readonly ended: boolean };

/** Reads until at least `limit` bytes or the end of the source. */
async function readUpTo(iterator: AsyncIterator<Uint8Array>, limit: number): Promise<Head> {
  const chunks: Uint8Array[] = [];
  let length = 0;
  while (length < limit) {
    const next = await iterator.next();
    if (next.done) return { bytes: Buffer.concat(chunks), ended: true };
    chunks.push(next.value);
    length += next.value.byteLength;
  }
  return { bytes: Buffer.concat(chunks), ended: false };
}

/** The image's header, read without decoding a pixel (and without a pixel limit: the check is ours), or undefined when it cannot be read. */
async function headerOf(
  input: Buffer,
): Promise<(Metadata & { format: string; width: number; height: number }) | undefined> {
  try {
    const metadata = await sharp(input, { limitInputPixels: false }).metadata();
    const { format, width, height } = metadata;
    return format && width && height ? { ...metadata, format, width, height } : undefined;
  } catch {
    return undefined;
  }
}

/** The size the image is seen at: a 90° EXIF orientation swaps its sides. */
function displayed(header: Metadata & { width: number; height: number }): Size {
  return header.autoOrient ?? { width: header.width, height: header.height };
}

/** The parameter that made a side too long: that side's own, or the other one when only that was given. */
function parameterToLower(
  transform: ImageTransform,
  side: 'width' | 'height',
): 'width' | 'height' | undefined {
  if (transform[side] !== undefined) return side;
  const other = side === 'width' ? 'height' : 'width';
  return transform[other] === undefined ? undefined : other;
}
