import { readdirSync, statSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { posix } from 'node:path';

/**
 * s3rver in a process of its own, started by s3-test-server.ts with `--openssl-legacy-provider` (s3rver
 * makes its list continuation tokens with DES, which OpenSSL 3 refuses otherwise). Serves the bucket
 * `argv[3]` from the folder `argv[2]`, prints `{"port":N}` once listening, and stops on SIGTERM.
 */
const [directory, bucket] = process.argv.slice(2);

/**
 * s3rver lists a folder in the order the disk gives (the folder `a/` before the file `a-b`); S3 lists in
 * key order, byte by byte, which the storage contract checks. Its walk is replaced, before s3rver loads
 * it, by one that visits each folder's entries in the order of the keys they hold: a file as its key
 * (its name without s3rver's suffix), a folder as its key followed by `/`.
 */
const s3rverUtils = createRequire(import.meta.url)('s3rver/lib/utils.js') as {
  walk: (dir: string, recurseFilter?: (path: string) => boolean) => Iterable<string>;
};
const sortKey = (name: string, folder: boolean) => (folder ? `${name}/` : name.replace(/\._S3rver_.*$/, ''));
s3rverUtils.walk = function* walk(dir: string, recurseFilter?: (path: string) => boolean): Iterable<string> {
  const entries = readdirSync(dir)
    .map((name) => ({ path: posix.join(dir, name), name }))
    .map((entry) => ({ ...entry, folder: statSync(entry.path).isDirectory() }))
    .sort((a, b) => {
      const [left, right] = [sortKey(a.name, a.folder), sortKey(b.name, b.folder)];
      return left < right ? -1 : left > right ? 1 : a.name < b.name ? -1 : 1;
    });
  for (const entry of entries) {
    if (!entry.folder) yield entry.path;
    else if (!recurseFilter || recurseFilter(entry.path)) yield* walk(entry.path, recurseFilter);
  }
};

/**
 * s3rver answers a PUT once the bytes are handed to its file's write stream, not once they are on disk (a
 * Buffer is `end()`ed and resolved at once; a stream resolves at its Transform's finish), so a HEAD right
 * after may find no file yet: an upload that S3 would show at once is then missing (seen once in CI). The
 * answer waits until the file holds the bytes, as S3's read-after-write consistency promises.
 */
type ObjectToPut = { bucket: string; key: string };
const FilesystemStore = createRequire(import.meta.url)('s3rver/lib/stores/filesystem.js') as {
  prototype: {
    putObject(this: unknown, object: ObjectToPut): Promise<{ size: number; md5: string }>;
    getResourcePath(bucket: string, key: string, resource: string): string;
  };
};
const putObject = FilesystemStore.prototype.putObject;
FilesystemStore.prototype.putObject = async function writtenPutObject(object) {
  const put = await putObject.call(this, object);
  const path = FilesystemStore.prototype.getResourcePath.call(this, object.bucket, object.key, 'object');
  for (let wait = 0; wait < 5000; wait += 5) {
    if ((await stat(path).catch(() => undefined))?.size === put.size) return put;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error(`s3rver did not write "${object.key}" (${put.size} bytes) within 5 s`);
};

const { default: S3rver } = await import('s3rver');
const server = new S3rver({
  address: '127.0.0.1',
  port: 0,
  silent: true,
  directory,
  configureBuckets: [{ name: bucket! }],
});
const { port } = await server.run();
process.stdout.write(`${JSON.stringify({ port })}\n`);
process.on('SIGTERM', () => {
  server.close().then(() => process.exit(0));
});
