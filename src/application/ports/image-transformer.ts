import type { ImageTransform, Size } from '../files/image-transform.ts';

/**
 * Makes an image's variant. Given the original's bytes as a stream, it reads the image's header first and
 * refuses, before decoding a pixel, what it must not decode: anything but a transformable image
 * (`unsupportedImage`, SVG included), an original over `maxPixels` or a variant over `maxDimension`
 * (`imageTooLarge`). The variant honours the original's EXIF orientation and carries none of its
 * metadata. Refusals and undecodable bytes surface while the returned stream is read, as those
 * INVALID_QUERY errors; the stream is then ended, and so is the source's.
 */
export interface ImageTransformer {
  /** How many of a file's first bytes `dimensions` is given: enough for nearly every image's header. */
  readonly headerBytes: number;
  /**
   * The size of the image whose first bytes (`headerBytes`, or the whole of a shorter file) are `head`,
   * as displayed (EXIF orientation applied), read from its header without decoding a pixel; undefined
   * when `head` holds no readable header of a transformable image. Never rejects.
   */
  dimensions(head: Uint8Array): Promise<Size | undefined>;
  transform(source: AsyncIterable<Uint8Array>, transform: ImageTransform): AsyncIterable<Uint8Array>;
}
