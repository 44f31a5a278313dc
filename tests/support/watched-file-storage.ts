import { InMemoryFileStorage } from '../../src/adapters/persistence/memory/in-memory-file-storage.ts';
import type { StoredObject } from '../../src/application/ports/file-storage.ts';

/**
 * The in-memory store, counting the writes begun and ended and the bytes they have taken in so far, so a
 * test knows when bytes got there or settled.
 */
export class WatchedStorage extends InMemoryFileStorage {
  begun = 0;
  settled = 0;
  received = 0;

  override async write(key: string, bytes: AsyncIterable<Uint8Array>): Promise<StoredObject> {
    this.begun++;
    try {
      return await super.write(key, this.counted(bytes));
    } finally {
      this.settled++;
    }
  }

  private async *counted(bytes: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
    for await (const chunk of bytes) {
      this.received += chunk.length;
      yield chunk;
    }
  }
}
