import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalDiskFileStorage } from '../../src/adapters/local-disk/local-disk-file-storage.ts';
import { InMemoryFileStorage } from '../../src/adapters/persistence/memory/in-memory-file-storage.ts';
import type { MikroOrmPersistence } from '../../src/adapters/persistence/mikro-orm/open-mikro-orm-persistence.ts';
import { userTablesDatabase } from '../../src/adapters/persistence/postgres/postgres-collections.ts';
import { PostgresLargeObjectStorage } from '../../src/adapters/persistence/postgres/postgres-large-object-storage.ts';
import type { FileStorage } from '../../src/application/ports/file-storage.ts';
import { type Backend, databaseBackends } from '../support/databases.ts';
import { type S3TestServer, startS3TestServer } from '../support/s3-test-server.ts';
import {
  CONTRACT_LIST_PAGE_SIZE,
  type FileStorageTarget,
  fileStorageContract,
} from './file-storage.contract.ts';

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

/** The shared migrated database of the backend, its large objects emptied before each case. */
function largeObjects(backend: Backend<MikroOrmPersistence>): FileStorageTarget {
  const target = backend.persistence();
  return {
    name: `${backend.name} large objects`,
    ...(backend.skip ? { skip: backend.skip } : {}),
    fresh: async () => {
      const persistence = await target.fresh();
      const store = new PostgresLargeObjectStorage(userTablesDatabase(persistence.orm), {
        listPageSize: CONTRACT_LIST_PAGE_SIZE,
      });
      await emptied(store);
      return store;
    },
    dispose: () => target.dispose(),
  };
}

/** s3rver on an ephemeral port, started with the first case; the bucket emptied before each. */
function s3(): FileStorageTarget {
  let server: Promise<S3TestServer> | undefined;
  return {
    name: 'S3 (s3rver)',
    fresh: async () => {
      server ??= startS3TestServer();
      const store = (await server).store({ listPageSize: CONTRACT_LIST_PAGE_SIZE });
      await emptied(store);
      return store;
    },
    dispose: async () => {
      if (server) await (await server).close();
    },
  };
}

async function emptied(store: FileStorage): Promise<void> {
  const keys: string[] = [];
  for await (const object of store.list('')) keys.push(object.key);
  for (const key of keys) await store.delete(key);
}

for (const target of [memory, localDisk(), ...databaseBackends().map(largeObjects), s3()]) {
  fileStorageContract(target).run();
}
