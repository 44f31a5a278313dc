import type { FileStorage } from '../ports/file-storage.ts';
import type { ImageTransformer } from '../ports/image-transformer.ts';
import { isTransformable } from './image-transform.ts';
import type { InspectedBytes } from './inspected-upload.ts';

/** A file row's `width` and `height`: null for anything but an image whose header could be read. */
export type Dimensions = { readonly width: number | null; readonly height: number | null };

const UNKNOWN: Dimensions = { width: null, height: null };

/** The `integer` columns' largest value: a TIFF may declare more, which no row can record. */
const LARGEST_SIDE = 2 ** 31 - 1;

/**
 * An uploaded image's size in pixels, as displayed (EXIF orientation applied), for its file row (docs/api.md
 * §15). Read from the header in the stored bytes' first `headerBytes`, never decoding a pixel, so a
 * decompression bomb costs an upload nothing more and is then refused by a transform from its row alone.
 * A header that cannot be read leaves the size unknown; it never fails the upload.
 */
export class ImageDimensions {
  constructor(
    private readonly storage: FileStorage,
    private readonly images: ImageTransformer,
  ) {}

  async of(key: string, inspected: InspectedBytes): Promise<Dimensions> {
    if (!isTransformable(inspected.type) || inspected.size === 0) return UNKNOWN;
    const end = Math.min(inspected.size, this.images.headerBytes) - 1;
    const bytes = await this.storage.read(key, { start: 0, end });
    if (!bytes) return UNKNOWN;
    const chunks: Uint8Array[] = [];
    for await (const chunk of bytes) chunks.push(chunk);
    const size = await this.images.dimensions(Buffer.concat(chunks));
    if (!size || size.width > LARGEST_SIDE || size.height > LARGEST_SIDE) return UNKNOWN;
    return { width: size.width, height: size.height };
  }
}
