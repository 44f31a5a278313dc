import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { InMemoryFileStorage } from '../../../src/adapters/persistence/memory/in-memory-file-storage.ts';
import { ImageDimensions } from '../../../src/application/files/image-dimensions.ts';
import type { ByteRange } from '../../../src/application/ports/file-storage.ts';
import { declaredPng } from '../../support/declared-png.ts';
import { FakeImageTransformer } from '../../support/fakes/fake-image-transformer.ts';

async function* bytesOf(bytes: Uint8Array): AsyncIterable<Uint8Array> {
  yield bytes;
}

/** The store, remembering the ranges read. */
class WatchedStorage extends InMemoryFileStorage {
  readonly ranges: Array<ByteRange | undefined> = [];

  override read(key: string, range?: ByteRange) {
    this.ranges.push(range);
    return super.read(key, range);
  }
}

async function stored(bytes: Uint8Array, type: string) {
  const storage = new WatchedStorage();
  await storage.write('tmp/upload', bytesOf(bytes));
  const inspected = { size: bytes.byteLength, checksum: 'x', type };
  return { storage, dimensions: new ImageDimensions(storage, new FakeImageTransformer()), inspected };
}

test("an image's size comes from its first headerBytes only", async () => {
  const png = declaredPng(640, 480, 4096);
  const { storage, dimensions, inspected } = await stored(png, 'image/png');
  assert.equal(await dimensions.of('tmp/upload', inspected), { width: 640, height: 480 });
  assert.equal(storage.ranges, [{ start: 0, end: new FakeImageTransformer().headerBytes - 1 }]);
});

test('anything but a transformable image is not read, and has no size', async () => {
  for (const type of ['text/plain', 'image/svg+xml', 'application/octet-stream']) {
    const { storage, dimensions, inspected } = await stored(declaredPng(10, 10, 0), type);
    assert.equal(await dimensions.of('tmp/upload', inspected), { width: null, height: null }, type);
    assert.equal(storage.ranges, []);
  }
});

test('an unreadable header, an empty file or a side no integer column holds leave the size unknown', async () => {
  const cases: Array<[string, Uint8Array]> = [
    ['junk', Buffer.from('not a png at all, whatever was declared')],
    ['empty', new Uint8Array(0)],
    ['too wide', declaredPng(2 ** 31, 10, 0)],
  ];
  for (const [name, bytes] of cases) {
    const { dimensions, inspected } = await stored(bytes, 'image/png');
    assert.equal(await dimensions.of('tmp/upload', inspected), { width: null, height: null }, name);
  }
});

test.run();
