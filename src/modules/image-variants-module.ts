import { availableParallelism } from 'node:os';
import { ContainerModule } from 'inversify';
import type { AppConfig } from '../adapters/config/config-schema.ts';
import { LazySharpImageTransformer } from '../adapters/sharp/lazy-sharp-image-transformer.ts';
import { ImageVariants } from '../application/files/image-variants.ts';
import type { ImageTransformer } from '../application/ports/image-transformer.ts';
import { factoryBinder } from './factory-binder.ts';
import { TYPES } from './service-identifiers.ts';

/**
 * Image variants (decision 0039): `ImageVariants`, which `/assets/:id` calls with the transform
 * parameters, over the file store and sharp, with the limits of `storage.transforms`.
 */
export const imageVariantsModule = new ContainerModule((options) => {
  const bind = factoryBinder(options);
  bind<ImageTransformer>(
    TYPES.ImageTransformer,
    (get) => new LazySharpImageTransformer(get<AppConfig>(TYPES.Config).storage.transforms),
  );
  bind(ImageVariants, (get) => {
    const transforms = get<AppConfig>(TYPES.Config).storage.transforms;
    return new ImageVariants(
      get(TYPES.FileStorage),
      get(TYPES.ImageTransformer),
      {
        concurrency: transforms.concurrency ?? availableParallelism(),
        queue: transforms.queue,
        maxPixels: transforms.maxPixels,
        maxDimension: transforms.maxDimension,
        presets: new Map(Object.entries(transforms.presets ?? {})),
        presetsOnly: transforms.presetsOnly,
      },
      get(TYPES.Clock),
    );
  });
});
