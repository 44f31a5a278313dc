import type { ByteRange, FileStorage, StoredObject } from '../../../application/ports/file-storage.ts';
import { assertStorageKey, assertStoragePrefix } from '../../storage-key.ts';

/** The slice a read hands out at a time, so that a consumer sees what a real store's stream looks like. */
const SLICE_BYTES = 64 * 1024;

type Entry = { readonly bytes: Uint8Array; readonly modifiedAt: Date };

/** The storage port in a map, for handler tests and the memory backend. */
export class InMemoryFileStorage implements FileStorage {
  private readonly objects = new Map<string, Entry>();

  async write(key: string, bytes: AsyncIterable<Uint8Array>): Promise<StoredObject> {
    assertStorageKey(key);
    const chunks: Uint8Array[] = [];
    for await (const chunk of bytes) chunks.push(chunk);
    const entry = { bytes: Buffer.concat(chunks), modifiedAt: new Date() };
    this.objects.set(key, entry);
    return describe(key, entry);
  }

  async read(key: string, range?: ByteRange): Promise<AsyncIterable<Uint8Array> | undefined> {
    assertStorageKey(key);
    const entry = this.objects.get(key);
    if (!entry) return undefined;
    const bytes = range ? entry.bytes.subarray(range.start, range.end + 1) : entry.bytes;
    return slices(bytes);
  }

  async stat(key: string): Promise<StoredObject | undefined> {
    assertStorageKey(key);
    const entry = this.objects.get(key);
    return entry && describe(key, entry);
  }

  async move(from: string, to: string): Promise<void> {
    assertStorageKey(from);
    assertStorageKey(to);
    const entry = this.objects.get(from);
    if (!entry) throw new Error(`No object "${from}" to move`);
    this.objects.set(to, entry);
    this.objects.delete(from);
  }

  async delete(key: string): Promise<void> {
    assertStorageKey(key);
    this.objects.delete(key);
  }

  async *list(prefix: string): AsyncIterable<StoredObject> {
    assertStoragePrefix(prefix);
    const keys = [...this.objects.keys()].filter((key) => key.startsWith(prefix)).sort();
    for (const key of keys) {
      const entry = this.objects.get(key);
      if (entry) yield describe(key, entry);
    }
  }
}

function describe(key: string, entry: Entry): StoredObject {
  return { key, size: entry.bytes.byteLength, modifiedAt: entry.modifiedAt };
}

async function* slices(bytes: Uint8Array): AsyncIterable<Uint8Array> {
  for (let start = 0; start < bytes.byteLength; start += SLICE_BYTES) {
    yield bytes.subarray(start, start + SLICE_BYTES);
  }
}
