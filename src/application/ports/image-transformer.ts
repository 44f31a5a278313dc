import type { ImageTransform } from '../files/image-transform.ts';

/**
 * Makes an image's variant. Given the original's bytes as a stream, it reads the image's header first and
 * refuses, before decoding a pixel, what it must not decode: anything but a transformable image
 * (`unsupportedImage`, SVG included), an original over `maxPixels` or a variant over `maxDimension`
 * (`imageTooLarge`). The variant honours the original's EXIF orientation and carries none of its
 * metadata. Refusals and undecodable bytes surface while the returned stream is read, as those
 * INVALID_QUERY errors; the stream is then ended, and so is the source's.
 */
export interface ImageTransformer {
  transform(source: AsyncIterable<Uint8Array>, transform: ImageTransform): AsyncIterable<Uint8Array>;
}
