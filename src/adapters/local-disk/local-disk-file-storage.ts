import { randomUUID } from 'node:crypto';
import type { Dirent, Stats } from 'node:fs';
import { type FileHandle, mkdir, open, readdir, rename, rm, rmdir, stat } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import type { ByteRange, FileStorage, StoredObject } from '../../application/ports/file-storage.ts';
import { assertStorageKey, assertStoragePrefix } from '../storage-key.ts';

/** What a read hands out at a time (fs's own default is 64 KiB): fewer, larger reads for a download. */
const READ_SLICE_BYTES = 256 * 1024;

/** Files and folders are the server's alone, like the data directory they live in. */
const FILE_MODE = 0o600;
const FOLDER_MODE = 0o700;

/** How often a write makes its folder again when a delete removed it, empty, in between. */
const FOLDER_RACE_RETRIES = 3;

/**
 * The storage port on a local disk (`storage.driver: local`): a key is a path under `root`, `files/a1`
 * at `<root>/files/a1`. A write goes to a hidden temporary file in the target's own folder, is synced,
 * then renamed over the target (docs/decisions/0038): a reader sees the old bytes or the new, never a
 * part, and a write that fails or a process that dies leaves at most a hidden temporary file, which no
 * listing shows. Deleting an object removes the folders it leaves empty.
 *
 * One disk, one instance: several instances share files only through a shared file system. On disk a key
 * cannot also be a folder of other keys (`a` beside `a/b`); such a write rejects.
 */
export class LocalDiskFileStorage implements FileStorage {
  private readonly root: string;

  constructor(root: string) {
    this.root = resolve(root);
  }

  async write(key: string, bytes: AsyncIterable<Uint8Array>): Promise<StoredObject> {
    const path = this.pathOf(key);
    const folder = dirname(path);
    const temporary = join(folder, `.${basename(path)}.${randomUUID()}.tmp`);
    const handle = await this.createIn(folder, temporary);
    let written: Stats;
    try {
      for await (const chunk of bytes) await writeAll(handle, chunk);
      await handle.sync();
      written = await handle.stat();
      await handle.close();
      await rename(temporary, path);
    } catch (error) {
      await handle.close().catch(() => {});
      await rm(temporary, { force: true });
      throw error;
    }
    await syncFolder(folder);
    return { key, size: written.size, modifiedAt: written.mtime };
  }

  async read(key: string, range?: ByteRange): Promise<AsyncIterable<Uint8Array> | undefined> {
    let handle: FileHandle;
    try {
      handle = await open(this.pathOf(key), 'r');
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
    // Opened before reading: a write that replaces the file meanwhile renames a new file over the name,
    // and this read goes on with the bytes it opened.
    if (!(await handle.stat()).isFile()) {
      await handle.close();
      return undefined;
    }
    return handle.createReadStream({ start: range?.start, end: range?.end, highWaterMark: READ_SLICE_BYTES });
  }

  async stat(key: string): Promise<StoredObject | undefined> {
    const path = this.pathOf(key);
    let stats: Stats;
    try {
      stats = await stat(path);
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
    return stats.isFile() ? { key, size: stats.size, modifiedAt: stats.mtime } : undefined;
  }

  async move(from: string, to: string): Promise<void> {
    const source = this.pathOf(from);
    const target = this.pathOf(to);
    if (!(await this.stat(from))) throw new Error(`No object "${from}" to move`);
    await mkdir(dirname(target), { recursive: true, mode: FOLDER_MODE });
    await rename(source, target);
    await syncFolder(dirname(target));
    if (dirname(source) !== dirname(target)) await this.removeEmptyFolders(dirname(source));
  }

  async delete(key: string): Promise<void> {
    const path = this.pathOf(key);
    if (!(await this.stat(key))) return;
    await rm(path, { force: true });
    await this.removeEmptyFolders(dirname(path));
  }

  async *list(prefix: string): AsyncIterable<StoredObject> {
    assertStoragePrefix(prefix);
    // Every key with the prefix lies under the prefix's last whole folder.
    yield* this.walk(prefix.slice(0, prefix.lastIndexOf('/') + 1), prefix);
  }

  /**
   * The objects under the folder `folderKey` (`''` or ending in `/`) in key order: its entries sorted as
   * their keys sort, a folder as its key plus `/`, so `a.b` comes before the folder `a/` and `a-b` before
   * both; one folder's entries in memory at a time.
   */
  private async *walk(folderKey: string, prefix: string): AsyncIterable<StoredObject> {
    let entries: Dirent[];
    try {
      entries = await readdir(join(this.root, folderKey), { withFileTypes: true });
    } catch (error) {
      if (isMissing(error)) return;
      throw error;
    }
    const listed = entries
      .filter((entry) => !entry.name.startsWith('.') && (entry.isFile() || entry.isDirectory()))
      .map((entry) => ({
        key: `${folderKey}${entry.name}${entry.isDirectory() ? '/' : ''}`,
        folder: entry.isDirectory(),
      }))
      .filter((entry) => entry.key.startsWith(prefix))
      .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    for (const entry of listed) {
      if (entry.folder) {
        yield* this.walk(entry.key, prefix);
        continue;
      }
      const found = await this.stat(entry.key);
      if (found) yield found;
    }
  }

  private pathOf(key: string): string {
    assertStorageKey(key);
    return join(this.root, key);
  }

  /** The temporary file, in a folder that a delete may remove, empty, between making it and creating the file. */
  private async createIn(folder: string, temporary: string): Promise<FileHandle> {
    for (let attempt = 0; ; attempt++) {
      await mkdir(folder, { recursive: true, mode: FOLDER_MODE });
      try {
        return await open(temporary, 'wx', FILE_MODE);
      } catch (error) {
        if (!isMissing(error) || attempt === FOLDER_RACE_RETRIES) throw error;
      }
    }
  }

  /** Up to the root, each folder that is now empty; a folder still in use (or just filled again) stays. */
  private async removeEmptyFolders(folder: string): Promise<void> {
    for (let current = folder; current.startsWith(`${this.root}/`); current = dirname(current)) {
      try {
        await rmdir(current);
      } catch {
        return;
      }
    }
  }
}

/** A write to a file may take less than the whole buffer; the rest follows. */
async function writeAll(handle: FileHandle, chunk: Uint8Array): Promise<void> {
  for (let offset = 0; offset < chunk.byteLength; ) {
    const { bytesWritten } = await handle.write(chunk, offset);
    offset += bytesWritten;
  }
}

/** A rename is durable once its folder is synced. */
async function syncFolder(folder: string): Promise<void> {
  const handle = await open(folder, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}
