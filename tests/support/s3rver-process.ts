import { readdirSync, statSync } from 'node:fs';
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
