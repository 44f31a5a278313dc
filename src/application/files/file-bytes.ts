import type { FileStorage } from '../ports/file-storage.ts';
import { storedKey, variantsPrefix } from './file-keys.ts';

/**
 * The one way a file's bytes leave the store once its row is gone (docs/api.md §15): the file and every
 * variant made of it. Called after the delete commits, so a crash in between leaves orphans (which a
 * sweep finds), never a row without its bytes.
 */
export class FileBytes {
  constructor(private readonly storage: FileStorage) {}

  async remove(id: string): Promise<void> {
    await this.storage.delete(storedKey(id));
    await this.removeVariants(id);
  }

  /** The variants alone: they no longer match bytes that were replaced. */
  async removeVariants(id: string): Promise<void> {
    const keys: string[] = [];
    for await (const variant of this.storage.list(variantsPrefix(id))) keys.push(variant.key);
    for (const key of keys) await this.storage.delete(key);
  }
}
