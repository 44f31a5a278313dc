import type { ImageTransform, Size } from '../../application/files/image-transform.ts';
import type { ImageTransformer } from '../../application/ports/image-transformer.ts';
import { HEAD_BYTES } from './image-head-bytes.ts';
import type { SharpImageTransformerSettings } from './sharp-image-transformer.ts';

/**
 * The sharp transformer, loaded on the first image that needs it: importing sharp and its libvips costs
 * ~180 ms of CPU, which a start (and every command of the CLI) would otherwise pay whether or not any
 * image is ever uploaded.
 */
export class LazySharpImageTransformer implements ImageTransformer {
  readonly headerBytes = HEAD_BYTES;
  private loaded: Promise<ImageTransformer> | undefined;

  constructor(private readonly settings: SharpImageTransformerSettings) {}

  async dimensions(head: Uint8Array): Promise<Size | undefined> {
    return (await this.transformer()).dimensions(head);
  }

  async *transform(source: AsyncIterable<Uint8Array>, transform: ImageTransform): AsyncIterable<Uint8Array> {
    yield* (await this.transformer()).transform(source, transform);
  }

  private transformer(): Promise<ImageTransformer> {
    this.loaded ??= import('./sharp-image-transformer.ts').then(
      ({ SharpImageTransformer }) => new SharpImageTransformer(this.settings),
    );
    return this.loaded;
  }
}
