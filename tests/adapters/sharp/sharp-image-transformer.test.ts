import sharp from 'sharp';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SharpImageTransformer } from '../../../src/adapters/sharp/sharp-image-transformer.ts';
import {
  IMAGE_FORMATS,
  type ImageTransform,
  type ImageTransformRequest,
  resolveImageTransform,
} from '../../../src/application/files/image-transform.ts';
import { DomainError } from '../../../src/domain/errors.ts';
import { declaredPng } from '../../support/declared-png.ts';

const transformer = new SharpImageTransformer({ maxPixels: 40_000_000, maxDimension: 6000 });

/** A 300 × 200 picture: red on the left half, blue on the right, so a crop or a rotation shows. */
function picture(width = 300, height = 200) {
  return sharp({ create: { width, height, channels: 3, background: { r: 220, g: 20, b: 20 } } }).composite([
    {
      input: { create: { width: width / 2, height, channels: 3, background: { r: 20, g: 20, b: 220 } } },
      left: width / 2,
      top: 0,
    },
  ]);
}

/** Bytes handed out as a store does, in slices, counting how many were read. */
function source(bytes: Uint8Array, slice = 16 * 1024) {
  const read = { bytes: 0, closed: false };
  async function* slices(): AsyncIterable<Uint8Array> {
    try {
      for (let start = 0; start < bytes.byteLength; start += slice) {
        read.bytes += Math.min(slice, bytes.byteLength - start);
        yield bytes.subarray(start, start + slice);
      }
    } finally {
      read.closed = true;
    }
  }
  return { bytes: slices(), read };
}

async function drained(bytes: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of bytes) chunks.push(chunk);
  return Buffer.concat(chunks);
}

async function transformed(input: Uint8Array, transform: ImageTransform) {
  const output = await drained(transformer.transform(source(input).bytes, transform));
  return { output, metadata: await sharp(output).metadata() };
}

function resolved(request: ImageTransformRequest, type = 'image/png'): ImageTransform {
  return resolveImageTransform(request, type, undefined);
}

async function refusal(input: Uint8Array, transform: ImageTransform): Promise<DomainError> {
  try {
    await drained(transformer.transform(source(input).bytes, transform));
  } catch (error) {
    assert.instance(error, DomainError);
    return error as DomainError;
  }
  throw new Error('expected a refusal');
}

const SOURCES = {
  'image/png': () => picture().png().toBuffer(),
  'image/jpeg': () => picture().jpeg().toBuffer(),
  'image/webp': () => picture().webp().toBuffer(),
};

test('PNG, JPEG and WebP in, every format out, at the size asked', async () => {
  const sharpName = { jpeg: 'jpeg', png: 'png', webp: 'webp', avif: 'heif', tiff: 'tiff' } as const;
  for (const [type, make] of Object.entries(SOURCES)) {
    const input = await make();
    for (const format of IMAGE_FORMATS) {
      const { metadata } = await transformed(input, resolved({ width: 60, format }, type));
      assert.is(metadata.format, sharpName[format], `${type} → ${format}`);
      assert.equal([metadata.width, metadata.height], [60, 40], `${type} → ${format}`);
    }
  }
});

test('without format the variant keeps the original format', async () => {
  const { metadata } = await transformed(
    await SOURCES['image/webp'](),
    resolved({ width: 30 }, 'image/webp'),
  );
  assert.is(metadata.format, 'webp');
});

test('each fit meets the box as sharp defines it', async () => {
  const input = await SOURCES['image/png']();
  const sizes = {
    cover: [100, 100],
    contain: [100, 100],
    inside: [100, 67],
    outside: [150, 100],
  } as const;
  for (const [fit, size] of Object.entries(sizes)) {
    const { metadata } = await transformed(input, resolved({ width: 100, height: 100, fit: fit as 'cover' }));
    assert.equal([metadata.width, metadata.height], size, fit);
  }
});

test('withoutEnlargement never scales up', async () => {
  const input = await SOURCES['image/png']();
  const { metadata } = await transformed(input, resolved({ width: 600, withoutEnlargement: true }));
  assert.equal([metadata.width, metadata.height], [300, 200]);
  const enlarged = await transformed(input, resolved({ width: 600 }));
  assert.equal([enlarged.metadata.width, enlarged.metadata.height], [600, 400]);
});

test('quality changes a lossy encoding', async () => {
  const input = await picture(600, 400).jpeg().toBuffer();
  const low = await transformed(input, resolved({ format: 'jpeg', quality: 5 }, 'image/jpeg'));
  const high = await transformed(input, resolved({ format: 'jpeg', quality: 100 }, 'image/jpeg'));
  assert.ok(low.output.byteLength < high.output.byteLength);
});

test('EXIF orientation is applied and no metadata of the original is kept', async () => {
  // Stored 40 × 20, shown rotated 90° (orientation 6) as 20 × 40; with EXIF, XMP and an ICC profile.
  const input = await picture(40, 20)
    .jpeg()
    .withExif({ IFD0: { Artist: 'Ada', Copyright: 'private' } })
    .withMetadata({ orientation: 6 })
    .withIccProfile('p3')
    .toBuffer();
  const before = await sharp(input).metadata();
  assert.is(before.orientation, 6);
  assert.ok(before.exif && before.icc);
  const { metadata } = await transformed(input, resolved({ format: 'jpeg' }, 'image/jpeg'));
  assert.equal([metadata.width, metadata.height], [20, 40]);
  assert.is(metadata.orientation, undefined);
  assert.is(metadata.exif, undefined);
  assert.is(metadata.xmp, undefined);
  assert.is(metadata.icc, undefined);
  const resized = await transformed(input, resolved({ height: 20 }, 'image/jpeg'));
  assert.equal([resized.metadata.width, resized.metadata.height], [10, 20]);
});

test('a decompression bomb is refused from its header: never decoded, and not even read whole', async () => {
  const bomb = declaredPng(50_000, 50_000, 1024 * 1024);
  const { bytes, read } = source(bomb);
  let error: unknown;
  try {
    await drained(transformer.transform(bytes, resolved({ width: 100 })));
  } catch (caught) {
    error = caught;
  }
  assert.instance(error, DomainError);
  assert.is((error as DomainError).code, 'INVALID_QUERY');
  assert.is((error as DomainError).extensions.reason, 'IMAGE_TOO_LARGE');
  assert.ok(read.bytes < bomb.byteLength / 4, `read ${read.bytes} of ${bomb.byteLength} bytes`);
  assert.ok(read.closed);
  const tiny = declaredPng(50_000, 50_000, 0);
  assert.ok(tiny.byteLength < 1024);
  assert.is((await refusal(tiny, resolved({ width: 100 }))).extensions.reason, 'IMAGE_TOO_LARGE');
});

test('a variant over maxDimension is refused before decoding, naming the parameter to lower', async () => {
  const tall = await picture(2, 4000).png().toBuffer();
  const refused = await refusal(tall, resolved({ width: 3000 }));
  assert.is(refused.extensions.reason, 'IMAGE_TOO_LARGE');
  assert.is(refused.extensions.field, 'width');
  const unresized = await refusal(await picture(6002, 2).png().toBuffer(), resolved({ format: 'webp' }));
  assert.is(unresized.extensions.reason, 'IMAGE_TOO_LARGE');
  assert.is(unresized.extensions.field, undefined);
});

test('a truncated image is refused with UNSUPPORTED_IMAGE', async () => {
  const input = await picture(600, 400).jpeg().toBuffer();
  const refused = await refusal(
    input.subarray(0, input.byteLength / 2),
    resolved({ width: 50 }, 'image/jpeg'),
  );
  assert.is(refused.code, 'INVALID_QUERY');
  assert.is(refused.extensions.reason, 'UNSUPPORTED_IMAGE');
  const headless = await refusal(input.subarray(0, 200), resolved({ width: 50 }, 'image/jpeg'));
  assert.is(headless.extensions.reason, 'UNSUPPORTED_IMAGE');
});

test('a text file, an SVG and an empty file are refused with UNSUPPORTED_IMAGE', async () => {
  const svg =
    '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>';
  for (const input of [Buffer.from('hello, world\n'), Buffer.from(svg), Buffer.alloc(0)]) {
    const refused = await refusal(input, resolved({ width: 5 }));
    assert.is(refused.extensions.reason, 'UNSUPPORTED_IMAGE', input.toString().slice(0, 20));
  }
});

test('an image of a type no variant is made of is refused, even behind an image type', async () => {
  const pdfLike = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(100)]);
  assert.is((await refusal(pdfLike, resolved({ width: 5 }))).extensions.reason, 'UNSUPPORTED_IMAGE');
});

test('dimensions come from the header in the first bytes, as displayed, never decoded', async () => {
  // Noise compresses badly: the 64 KiB prefix holds the header and a fraction of the pixels.
  const noisy = await sharp(Buffer.from(Array.from({ length: 600 * 400 * 3 }, (_, i) => (i * 7919) % 251)), {
    raw: { width: 600, height: 400, channels: 3 },
  })
    .jpeg({ quality: 100 })
    .withMetadata({ orientation: 6 })
    .toBuffer();
  assert.ok(noisy.byteLength > transformer.headerBytes);
  assert.equal(await transformer.dimensions(noisy.subarray(0, transformer.headerBytes)), {
    width: 400,
    height: 600,
  });
  const bomb = declaredPng(50_000, 50_000, 1024 * 1024).subarray(0, transformer.headerBytes);
  assert.equal(await transformer.dimensions(bomb), { width: 50_000, height: 50_000 });
  const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"></svg>');
  for (const head of [svg, Buffer.from([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3]), Buffer.alloc(0)]) {
    assert.is(await transformer.dimensions(head), undefined);
  }
});

test('a reader that stops early ends the source too', async () => {
  const input = await picture(600, 400).png().toBuffer();
  const { bytes, read } = source(input, 1024);
  for await (const _ of transformer.transform(bytes, resolved({ width: 100 }))) break;
  assert.ok(read.closed);
});

test.run();
