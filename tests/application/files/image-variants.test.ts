import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { InMemoryFileStorage } from '../../../src/adapters/persistence/memory/in-memory-file-storage.ts';
import { FileBytes } from '../../../src/application/files/file-bytes.ts';
import {
  type ImageFile,
  type ImageVariantSettings,
  ImageVariants,
} from '../../../src/application/files/image-variants.ts';
import type { FileStorage } from '../../../src/application/ports/file-storage.ts';
import { DomainError } from '../../../src/domain/errors.ts';
import { expectDomainError } from '../../support/expect-domain-error.ts';
import { FakeImageTransformer, PNG_SIGNATURE, TINY_PNG } from '../../support/fakes/fake-image-transformer.ts';
import { FixedClock } from '../../support/fakes/fixed-clock.ts';

const SETTINGS: ImageVariantSettings = {
  concurrency: 1,
  queue: 1,
  maxPixels: 1_000_000,
  maxDimension: 2000,
  presets: new Map([['thumbnail', { width: 200, format: 'webp' }]]),
};

const PHOTO: ImageFile = {
  id: '0193f8e2-0000-7000-8000-000000000001',
  key: 'files/photo',
  type: 'image/png',
  width: 300,
  height: 200,
  modifiedOn: new Date('2026-11-26T10:00:00Z'),
};

async function fixture(settings: Partial<ImageVariantSettings> = {}) {
  const storage = new InMemoryFileStorage();
  const transformer = new FakeImageTransformer();
  const variants = new ImageVariants(storage, transformer, { ...SETTINGS, ...settings }, new FixedClock());
  await storage.write(PHOTO.key, bytesOf(Buffer.concat([PNG_SIGNATURE, Buffer.alloc(100)])));
  return { storage, transformer, variants };
}

async function* bytesOf(...chunks: Uint8Array[]): AsyncIterable<Uint8Array> {
  yield* chunks;
}

async function drained(bytes: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of bytes) chunks.push(chunk);
  return Buffer.concat(chunks);
}

async function keys(storage: FileStorage, prefix = ''): Promise<string[]> {
  const found: string[] = [];
  for await (const object of storage.list(prefix)) found.push(object.key);
  return found;
}

async function refusal(promise: Promise<unknown>): Promise<DomainError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  assert.instance(error, DomainError);
  return error as DomainError;
}

test('a query without transforms opens no variant: the caller serves the original', async () => {
  const { variants, transformer } = await fixture();
  assert.is(await variants.open(PHOTO, { download: '' }, undefined), undefined);
  assert.is(transformer.calls.length, 0);
});

test('a variant is made once, stored under variants/<id>/, and read from the store afterwards', async () => {
  const { variants, transformer, storage } = await fixture();
  const first = await variants.open(PHOTO, { width: '100' }, undefined);
  const again = await variants.open(PHOTO, { width: '100' }, undefined);
  assert.ok(first && again);
  assert.is(transformer.calls.length, 1);
  assert.equal(transformer.calls[0], { width: 100, format: 'png' });
  assert.is(first.type, 'image/png');
  assert.is(first.size, TINY_PNG.byteLength);
  assert.match(first.etag, /^"[A-Za-z0-9_-]{43}"$/);
  assert.is(again.etag, first.etag);
  assert.not.ok(first.variesWithAccept);
  assert.equal(await drained(await again.read()), TINY_PNG);
  assert.equal(await drained(await again.read({ start: 1, end: 3 })), TINY_PNG.subarray(1, 4));
  assert.equal(await keys(storage, 'variants/'), [`variants/${PHOTO.id}/${first.etag.slice(1, -1)}`]);
  assert.equal(await keys(storage, 'tmp/'), []);
});

test('two requests for the same missing variant wait for one transform', async () => {
  const { variants, transformer } = await fixture();
  transformer.hold();
  const both = Promise.all([
    variants.open(PHOTO, { width: '100' }, undefined),
    variants.open(PHOTO, { width: '100' }, undefined),
  ]);
  await new Promise((resolve) => setImmediate(resolve));
  transformer.release();
  const [one, other] = await both;
  assert.is(transformer.calls.length, 1);
  assert.is(one?.etag, other?.etag);
});

test('over the running and waiting places a transform is 503 SERVICE_UNAVAILABLE with retryAfter', async () => {
  const { variants, transformer } = await fixture({ concurrency: 1, queue: 1 });
  transformer.hold();
  const running = variants.open(PHOTO, { width: '100' }, undefined);
  const waiting = variants.open(PHOTO, { width: '101' }, undefined);
  await new Promise((resolve) => setImmediate(resolve));
  const refused = await refusal(variants.open(PHOTO, { width: '102' }, undefined));
  assert.is(refused.code, 'SERVICE_UNAVAILABLE');
  assert.is(refused.extensions.reason, 'TRANSFORMS_BUSY');
  assert.ok(Number.isInteger(refused.extensions.retryAfter) && (refused.extensions.retryAfter ?? 0) >= 1);
  // Joining a transform already queued takes no place.
  const joining = variants.open(PHOTO, { width: '101' }, undefined);
  transformer.release();
  assert.ok(await running);
  assert.is((await waiting)?.etag, (await joining)?.etag);
  assert.is(transformer.calls.length, 2);
  // Places free again once the work is done.
  assert.ok(await variants.open(PHOTO, { width: '102' }, undefined));
});

test('a transform that fails leaves nothing in the store, and the next request tries again', async () => {
  const { variants, transformer, storage } = await fixture();
  transformer.failAfterFirstChunk = true;
  const refused = await refusal(variants.open(PHOTO, { width: '100' }, undefined));
  assert.is(refused.code, 'INVALID_QUERY');
  assert.is(refused.extensions.reason, 'UNSUPPORTED_IMAGE');
  assert.equal(await keys(storage, 'variants/'), []);
  assert.equal(await keys(storage, 'tmp/'), []);
  transformer.failAfterFirstChunk = false;
  assert.ok(await variants.open(PHOTO, { width: '100' }, undefined));
  assert.is(transformer.calls.length, 2);
});

test('bytes that are not an image are refused with UNSUPPORTED_IMAGE, whatever the row says', async () => {
  const { variants, storage } = await fixture();
  await storage.write('files/lying', bytesOf(Buffer.from('just text')));
  const refused = await refusal(variants.open({ ...PHOTO, key: 'files/lying' }, { width: '10' }, undefined));
  assert.is(refused.extensions.reason, 'UNSUPPORTED_IMAGE');
  assert.equal(await keys(storage, 'variants/'), []);
});

test('a type no variant is made of is refused before its bytes are read', async () => {
  const { variants, transformer } = await fixture();
  for (const type of ['image/svg+xml', 'text/plain', 'application/pdf', null]) {
    const refused = await refusal(variants.open({ ...PHOTO, type }, { width: '10' }, undefined));
    assert.is(refused.extensions.reason, 'UNSUPPORTED_IMAGE', String(type));
  }
  assert.is(transformer.calls.length, 0);
});

test('an original known to be over maxPixels is refused before its bytes are read', async () => {
  const { variants, transformer } = await fixture();
  const bomb = { ...PHOTO, width: 50_000, height: 50_000 };
  const refused = await refusal(variants.open(bomb, { width: '10' }, undefined));
  assert.is(refused.code, 'INVALID_QUERY');
  assert.is(refused.extensions.reason, 'IMAGE_TOO_LARGE');
  assert.is(transformer.calls.length, 0);
});

test('a bad parameter is 400 before anything is read', async () => {
  const { variants, transformer } = await fixture();
  await expectDomainError(variants.open(PHOTO, { width: '2001' }, undefined), 'INVALID_QUERY');
  assert.is(transformer.calls.length, 0);
});

test('new bytes of the original get new variants, never the old ones', async () => {
  const { variants, transformer, storage } = await fixture();
  const before = await variants.open(PHOTO, { width: '100' }, undefined);
  const modified = { ...PHOTO, modifiedOn: new Date('2026-11-26T11:00:00Z') };
  const after = await variants.open(modified, { width: '100' }, undefined);
  assert.is.not(after?.etag, before?.etag);
  assert.is(transformer.calls.length, 2);
  const byChecksum = await variants.open({ ...PHOTO, checksum: 'sha256:ab' }, { width: '100' }, undefined);
  assert.is.not(byChecksum?.etag, before?.etag);

  // A row without checksum or modification time: the stored original's own version decides.
  const bare = { ...PHOTO, modifiedOn: null };
  const old = await variants.open(bare, { width: '100' }, undefined);
  await storage.write(PHOTO.key, bytesOf(PNG_SIGNATURE, Buffer.alloc(500)));
  const fresh = await variants.open(bare, { width: '100' }, undefined);
  assert.is.not(fresh?.etag, old?.etag);
});

test('format=auto follows Accept and says the answer varies with it', async () => {
  const { variants, transformer } = await fixture();
  const avif = await variants.open(PHOTO, { format: 'auto' }, 'image/avif,image/webp,*/*');
  const webp = await variants.open(PHOTO, { format: 'auto' }, 'image/webp,*/*');
  const original = await variants.open(PHOTO, { format: 'auto' }, '*/*');
  assert.equal([avif?.type, webp?.type, original?.type], ['image/avif', 'image/webp', 'image/png']);
  assert.ok(avif?.variesWithAccept);
  assert.equal(
    transformer.calls.map((call) => call.format),
    ['avif', 'webp', 'png'],
  );
});

test('a preset is a transform like any other', async () => {
  const { variants, transformer } = await fixture();
  const thumbnail = await variants.open(PHOTO, { key: 'thumbnail' }, undefined);
  const same = await variants.open(PHOTO, { width: '200', format: 'webp' }, undefined);
  assert.is(thumbnail?.etag, same?.etag);
  assert.is(transformer.calls.length, 1);
});

test('an original whose bytes are gone is 404', async () => {
  const { variants } = await fixture();
  await expectDomainError(
    variants.open({ ...PHOTO, key: 'files/gone' }, { width: '10' }, undefined),
    'NOT_FOUND',
  );
  await expectDomainError(
    variants.open({ ...PHOTO, key: 'files/gone', modifiedOn: null }, { width: '10' }, undefined),
    'NOT_FOUND',
  );
});

test("removing a file's variants (FileBytes, the one path) deletes every variant of it and no other", async () => {
  const { variants, storage } = await fixture();
  const other = { ...PHOTO, id: `${PHOTO.id.slice(0, -1)}2` };
  await variants.open(PHOTO, { width: '10' }, undefined);
  await variants.open(PHOTO, { width: '20' }, undefined);
  await variants.open(other, { width: '10' }, undefined);
  await new FileBytes(storage).removeVariants(PHOTO.id);
  assert.is((await keys(storage, 'variants/')).length, 1);
  assert.ok((await keys(storage, `variants/${other.id}/`)).length === 1);
  assert.equal(await keys(storage, 'files/'), [PHOTO.key]);
});

test('an id that is not a plain token cannot name a key', async () => {
  const { variants } = await fixture();
  await refusalOfAnyKind(variants.open({ ...PHOTO, id: '../files' }, { width: '10' }, undefined));
});

async function refusalOfAnyKind(promise: Promise<unknown>) {
  const outcome = await promise.then(
    () => 'resolved',
    () => 'rejected',
  );
  assert.is(outcome, 'rejected');
}

test.run();
