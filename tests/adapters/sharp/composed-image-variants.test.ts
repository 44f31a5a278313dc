import sharp from 'sharp';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { loadConfig } from '../../../src/adapters/config/load-config.ts';
import { resolveSecret } from '../../../src/adapters/config/resolve-secret.ts';
import { createInMemoryPersistence } from '../../../src/adapters/persistence/memory/in-memory-persistence.ts';
import { ImageVariants } from '../../../src/application/files/image-variants.ts';
import type { FileStorage } from '../../../src/application/ports/file-storage.ts';
import { buildContainer, TYPES } from '../../../src/container.ts';
import { TEST_SECRET } from '../../support/test-app.ts';

async function* bytesOf(bytes: Uint8Array): AsyncIterable<Uint8Array> {
  yield bytes;
}

async function drained(bytes: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of bytes) chunks.push(chunk);
  return Buffer.concat(chunks);
}

test('the composition root makes a 200-pixel thumbnail of a stored photo with sharp, from a preset', async () => {
  const env = {
    NODE_ENV: 'test',
    SECRET: TEST_SECRET,
    STORAGE_TRANSFORMS_PRESETS: '{"thumbnail":{"width":200,"format":"auto"}}',
  };
  const container = await buildContainer(
    resolveSecret(loadConfig({ env }), env),
    createInMemoryPersistence(),
  );
  const storage = container.get<FileStorage>(TYPES.FileStorage);
  const photo = await sharp({ create: { width: 3000, height: 2000, channels: 3, background: 'teal' } })
    .jpeg()
    .toBuffer();
  await storage.write('files/cargo-photo', bytesOf(photo));
  const file = { id: 'cargo-photo', key: 'files/cargo-photo', type: 'image/jpeg', width: 3000, height: 2000 };

  const variant = await container.get(ImageVariants).open(file, { key: 'thumbnail' }, 'image/webp,*/*');
  assert.ok(variant);
  assert.is(variant.type, 'image/webp');
  assert.ok(variant.variesWithAccept);
  const thumbnail = await sharp(await drained(await variant.read())).metadata();
  assert.equal([thumbnail.format, thumbnail.width, thumbnail.height], ['webp', 200, 133]);
  assert.is(variant.size, (await drained(await variant.read())).byteLength);
});

test.run();
