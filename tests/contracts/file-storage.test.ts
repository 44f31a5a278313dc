import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalDiskFileStorage } from '../../src/adapters/local-disk/local-disk-file-storage.ts';
import { InMemoryFileStorage } from '../../src/adapters/persistence/memory/in-memory-file-storage.ts';
import { type FileStorageTarget, fileStorageContract } from './file-storage.contract.ts';

const memory: FileStorageTarget = {
  name: 'memory',
  fresh: async () => new InMemoryFileStorage(),
  dispose: async () => {},
};

/** A fresh folder per case under one temporary folder, removed at the end. */
function localDisk(): FileStorageTarget {
  let parent: Promise<string> | undefined;
  let cases = 0;
  return {
    name: 'local disk',
    fresh: async () => {
      parent ??= mkdtemp(join(tmpdir(), 'datagate-files-'));
      return new LocalDiskFileStorage(join(await parent, `case-${++cases}`));
    },
    dispose: async () => {
      if (parent) await rm(await parent, { recursive: true, force: true });
    },
  };
}

for (const target of [memory, localDisk()]) fileStorageContract(target).run();
