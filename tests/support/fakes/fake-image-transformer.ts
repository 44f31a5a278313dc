import { unsupportedImage } from '../../../src/application/files/image-refusals.ts';
import type { ImageTransform, Size } from '../../../src/application/files/image-transform.ts';
import type { ImageTransformer } from '../../../src/application/ports/image-transformer.ts';

/** A PNG's signature: the fake takes for an image whatever starts with it. */
export const PNG_SIGNATURE = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** A 1 × 1 transparent PNG: every variant the fake makes. */
export const TINY_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGBgAAAABQABpfZFQAAAAABJRU5ErkJggg==',
  'base64',
);

/**
 * `ImageTransformer` without sharp: reads the whole source, refuses one that does not start with a PNG
 * signature (as the real one refuses a non-image), and answers TINY_PNG. `hold()` keeps every transform
 * waiting until `release()`, so a test can fill the queue; `failAfterFirstChunk` makes the next ones
 * break mid-output, as a corrupt image does.
 */
export class FakeImageTransformer implements ImageTransformer {
  readonly headerBytes = 64;
  readonly calls: ImageTransform[] = [];
  failAfterFirstChunk = false;
  private gate: Promise<void> = Promise.resolve();
  private open: () => void = () => {};

  /** A PNG's own header, read as the real one reads it; anything else has no size. */
  async dimensions(head: Uint8Array): Promise<Size | undefined> {
    const bytes = Buffer.from(head);
    if (bytes.length < 24 || !bytes.subarray(0, PNG_SIGNATURE.length).equals(PNG_SIGNATURE)) return undefined;
    return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
  }

  hold(): void {
    this.gate = new Promise((resolve) => {
      this.open = resolve;
    });
  }

  release(): void {
    this.open();
  }

  async *transform(source: AsyncIterable<Uint8Array>, transform: ImageTransform): AsyncIterable<Uint8Array> {
    this.calls.push(transform);
    const chunks: Uint8Array[] = [];
    for await (const chunk of source) chunks.push(chunk);
    await this.gate;
    const bytes = Buffer.concat(chunks);
    if (!bytes.subarray(0, PNG_SIGNATURE.length).equals(PNG_SIGNATURE)) throw unsupportedImage();
    yield TINY_PNG.subarray(0, 10);
    if (this.failAfterFirstChunk) throw unsupportedImage();
    yield TINY_PNG.subarray(10);
  }
}
