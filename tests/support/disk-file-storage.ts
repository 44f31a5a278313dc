import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ByteRange, FileStorage, StoredObject } from '../../src/application/ports/file-storage.ts';

/**
 * A bare local-disk store for the memory tests, until the storage adapters land: keys are paths under
 * `root`. Bytes stream both ways, so a test measures the server, not the store.
 */
export class DiskFileStorage implements FileStorage {
  constructor(private readonly root: string) {}

  async write(key: string, bytes: AsyncIterable<Uint8Array>): Promise<StoredObject> {
    const path = join(this.root, key);
    await mkdir(dirname(path), { recursive: true });
    try {
      await pipeline(Readable.from(bytes), createWriteStream(path));
    } catch (error) {
      await rm(path, { force: true });
      throw error;
    }
    return (await this.stat(key))!;
  }

  async read(key: string, range?: ByteRange): Promise<AsyncIterable<Uint8Array> | undefined> {
    if (!(await this.stat(key))) return undefined;
    return createReadStream(join(this.root, key), range ?? {});
  }

  async stat(key: string): Promise<StoredObject | undefined> {
    const found = await stat(join(this.root, key)).catch(() => undefined);
    return found?.isFile() ? { key, size: found.size, modifiedAt: found.mtime } : undefined;
  }

  async move(from: string, to: string): Promise<void> {
    await mkdir(dirname(join(this.root, to)), { recursive: true });
    await rename(join(this.root, from), join(this.root, to));
  }

  async delete(key: string): Promise<void> {
    await rm(join(this.root, key), { force: true });
  }

  async *list(prefix: string): AsyncIterable<StoredObject> {
    const entries = await readdir(this.root, { recursive: true, withFileTypes: true }).catch(() => []);
    const keys = entries
      .filter((entry) => entry.isFile())
      .map((entry) => relative(this.root, join(entry.parentPath, entry.name)))
      .filter((key) => key.startsWith(prefix))
      .sort();
    for (const key of keys) {
      const found = await this.stat(key);
      if (found) yield found;
    }
  }
}
