import * as assert from 'uvu/assert';
import type { FileStorage, StoredObject } from '../../src/application/ports/file-storage.ts';
import { generatedBytes, readAll, sha256Of } from '../support/generated-bytes.ts';
import { skippableSuite } from '../support/skippable-suite.ts';

/** One store as the contract sees it; `fresh()` hands out an empty store, listing at most 3 objects a page. */
export type FileStorageTarget = {
  readonly name: string;
  /** Why the store cannot run here; its cases are then counted as skipped. */
  readonly skip?: string;
  fresh(): Promise<FileStorage>;
  dispose(): Promise<void>;
};

/** The page size every target lists with, so that a listing of a few objects crosses pages. */
export const CONTRACT_LIST_PAGE_SIZE = 3;

const text = (value: string) => new TextEncoder().encode(value);

async function* chunks(...parts: ReadonlyArray<Uint8Array | string>): AsyncIterable<Uint8Array> {
  for (const part of parts) yield typeof part === 'string' ? text(part) : part;
}

/** uvu's `throws` does not wait for a promise. */
async function rejects(promise: Promise<unknown>, message: string): Promise<void> {
  const outcome = await promise.then(
    () => 'resolved',
    () => 'rejected',
  );
  assert.is(outcome, 'rejected', message);
}

const same = (actual: Uint8Array, expected: Uint8Array, message?: string) =>
  assert.ok(Buffer.from(actual).equals(Buffer.from(expected)), message ?? 'the same bytes');

async function readText(store: FileStorage, key: string, range?: { start: number; end: number }) {
  const bytes = await store.read(key, range);
  return bytes && new TextDecoder().decode(await readAll(bytes));
}

async function listed(store: FileStorage, prefix: string): Promise<StoredObject[]> {
  const objects: StoredObject[] = [];
  for await (const object of store.list(prefix)) objects.push(object);
  return objects;
}

/** Bytes that fail after `beforeFailure` of them, as a client that aborts an upload midway. */
async function* failingAfter(beforeFailure: number, failure: Error): AsyncIterable<Uint8Array> {
  yield* generatedBytes(beforeFailure, 64 * 1024);
  throw failure;
}

export function fileStorageContract(target: FileStorageTarget) {
  const test = skippableSuite<{ store: FileStorage }>(`FileStorage on ${target.name}`, target.skip);
  test.before.each(async (context) => {
    context.store = await target.fresh();
  });
  test.after(() => target.dispose());

  test('an empty object and a one-byte object read back as written', async ({ store }) => {
    const empty = await store.write('round/empty', chunks());
    assert.equal([empty.key, empty.size], ['round/empty', 0]);
    assert.is((await readAll((await store.read('round/empty'))!)).byteLength, 0);
    const one = await store.write('round/one', chunks(new Uint8Array([0xff])));
    assert.is(one.size, 1);
    same(await readAll((await store.read('round/one'))!), new Uint8Array([0xff]));
  });

  test('several MB written in odd-sized chunks read back byte for byte', async ({ store }) => {
    const size = 5 * 1024 * 1024 + 4099;
    const written = await store.write('round/large.bin', generatedBytes(size, 7919));
    assert.is(written.size, size);
    assert.instance(written.modifiedAt, Date);
    const read = await sha256Of((await store.read('round/large.bin'))!);
    assert.equal(read, await sha256Of(generatedBytes(size, 65_536)));
  });

  test('a range reads the first byte, the last byte, or a middle stretch', async ({ store }) => {
    const size = 700_001;
    await store.write('ranges/file', generatedBytes(size, 100_003));
    const whole = await readAll(generatedBytes(size, size));
    const ranged = async (start: number, end: number) =>
      readAll((await store.read('ranges/file', { start, end }))!);
    same(await ranged(0, 0), whole.subarray(0, 1), 'the first byte');
    same(await ranged(size - 1, size - 1), whole.subarray(size - 1), 'the last byte');
    same(await ranged(262_000, 530_000), whole.subarray(262_000, 530_001), 'a middle stretch');
    same(await ranged(0, size - 1), whole, 'the whole');
  });

  test('a missing key reads, stats and ranges as undefined', async ({ store }) => {
    assert.is(await store.read('missing/key'), undefined);
    assert.is(await store.read('missing/key', { start: 0, end: 0 }), undefined);
    assert.is(await store.stat('missing/key'), undefined);
  });

  test('stat tells the size and when the object was written', async ({ store }) => {
    const written = await store.write('stat/file.txt', chunks('hello, ', 'world'));
    const stat = await store.stat('stat/file.txt');
    assert.ok(stat);
    assert.is(stat.key, 'stat/file.txt');
    assert.is(stat.size, 12);
    assert.instance(stat.modifiedAt, Date);
    assert.ok(Math.abs(stat.modifiedAt.getTime() - written.modifiedAt.getTime()) < 60_000);
  });

  test('a write replaces what the key held', async ({ store }) => {
    await store.write('replace/file', chunks('the first, longer version'));
    const second = await store.write('replace/file', chunks('second'));
    assert.is(second.size, 6);
    assert.is(await readText(store, 'replace/file'), 'second');
    assert.is((await store.stat('replace/file'))?.size, 6);
    assert.equal(
      (await listed(store, 'replace/')).map((object) => object.key),
      ['replace/file'],
    );
  });

  test('move renames an object, replacing the target', async ({ store }) => {
    await store.write('move/from', chunks('moved bytes'));
    await store.write('move/elsewhere/to', chunks('what was there'));
    await store.move('move/from', 'move/elsewhere/to');
    assert.is(await readText(store, 'move/elsewhere/to'), 'moved bytes');
    assert.is(await store.stat('move/from'), undefined);
    await store.move('move/elsewhere/to', 'move/new/place');
    assert.is(await readText(store, 'move/new/place'), 'moved bytes');
    assert.equal(
      (await listed(store, 'move/')).map((object) => object.key),
      ['move/new/place'],
    );
  });

  test('moving a missing key rejects and changes nothing', async ({ store }) => {
    await store.write('move/target', chunks('kept'));
    let rejected = false;
    await store.move('move/absent', 'move/target').catch(() => {
      rejected = true;
    });
    assert.ok(rejected, 'rejects');
    assert.is(await readText(store, 'move/target'), 'kept');
  });

  test('delete removes the object and is idempotent', async ({ store }) => {
    await store.write('delete/file', chunks('bytes'));
    await store.write('delete/other', chunks('stays'));
    await store.delete('delete/file');
    assert.is(await store.stat('delete/file'), undefined);
    assert.is(await store.read('delete/file'), undefined);
    await store.delete('delete/file');
    await store.delete('delete/never/there');
    assert.is(await readText(store, 'delete/other'), 'stays');
  });

  test('list gives the keys with the prefix in key order, across pages', async ({ store }) => {
    const keys = ['list/b', 'list/a/d/e', 'list/ab', 'list/a.b', 'list/a-b', 'list/a/c', 'list/B', 'list/_z'];
    for (const key of [...keys, 'lista', 'other/list/x', 'lis']) await store.write(key, chunks(key));
    const all = await listed(store, 'list/');
    assert.equal(
      all.map((object) => object.key),
      [...keys].sort(),
    );
    assert.equal(
      all.map((object) => object.size),
      [...keys].sort().map((key) => key.length),
    );
    assert.ok(all.every((object) => object.modifiedAt instanceof Date));
    assert.equal(
      (await listed(store, 'list/a')).map((object) => object.key),
      ['list/a-b', 'list/a.b', 'list/a/c', 'list/a/d/e', 'list/ab'],
    );
    assert.equal(
      (await listed(store, 'list/a/')).map((object) => object.key),
      ['list/a/c', 'list/a/d/e'],
    );
    assert.equal(
      (await listed(store, '')).map((object) => object.key),
      [...keys, 'lista', 'other/list/x', 'lis'].sort(),
    );
    assert.equal(await listed(store, 'nothing/'), []);
  });

  test('a write whose bytes fail midway rejects with that failure and leaves nothing', async ({ store }) => {
    const failure = new Error('client went away');
    const rejection = await store.write('failed/new', failingAfter(6 * 1024 * 1024, failure)).then(
      () => undefined,
      (error: unknown) => error,
    );
    assert.is(rejection, failure);
    assert.is(await store.stat('failed/new'), undefined);
    assert.is(await store.read('failed/new'), undefined);
    assert.equal(await listed(store, 'failed/'), []);
  });

  test('a replacing write that fails midway leaves the old bytes', async ({ store }) => {
    await store.write('failed/old', chunks('the old bytes'));
    const failure = new Error('upload over its limit');
    const rejection = await store.write('failed/old', failingAfter(300_000, failure)).then(
      () => undefined,
      (error: unknown) => error,
    );
    assert.is(rejection, failure);
    assert.is(await readText(store, 'failed/old'), 'the old bytes');
  });

  test('concurrent writes to different keys each keep their own bytes', async ({ store }) => {
    const sizes = [1, 70_000, 300_001, 1_048_577, 0, 513, 2_000_000, 65_536];
    const written = await Promise.all(
      sizes.map((size, index) =>
        store.write(`concurrent/${index}`, generatedBytes(size, 4093 + index, index)),
      ),
    );
    assert.equal(
      written.map((object) => object.size),
      sizes,
    );
    for (const [index, size] of sizes.entries()) {
      assert.is(
        await sha256Of((await store.read(`concurrent/${index}`))!),
        await sha256Of(generatedBytes(size, 65_536, index)),
        `concurrent/${index}`,
      );
    }
  });

  test('a key that could leave the store or hide is refused', async ({ store }) => {
    const bad = [
      '../escape',
      '/absolute',
      'a//b',
      '.hidden',
      'a/./b',
      'a/../b',
      '',
      'a b',
      'a/',
      'x'.repeat(1025),
    ];
    for (const key of bad) {
      await rejects(store.write(key, chunks('x')), `write ${JSON.stringify(key)}`);
      await rejects(store.read(key), `read ${JSON.stringify(key)}`);
      await rejects(store.stat(key), `stat ${JSON.stringify(key)}`);
      await rejects(store.delete(key), `delete ${JSON.stringify(key)}`);
    }
    await rejects(listed(store, '../'), 'list ../');
    await rejects(listed(store, '/'), 'list /');
  });

  return test;
}
