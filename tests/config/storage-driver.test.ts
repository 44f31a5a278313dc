import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ConfigError, loadConfig } from '../../src/adapters/config/load-config.ts';
import { resolveSecret } from '../../src/adapters/config/resolve-secret.ts';
import { LocalDiskFileStorage } from '../../src/adapters/local-disk/local-disk-file-storage.ts';
import { createInMemoryPersistence } from '../../src/adapters/persistence/memory/in-memory-persistence.ts';
import type { Persistence } from '../../src/adapters/persistence/persistence.ts';
import { S3FileStorage } from '../../src/adapters/s3/s3-file-storage.ts';
import type { FileStorage } from '../../src/application/ports/file-storage.ts';
import { buildContainer, TYPES } from '../../src/container.ts';
import { TEST_SECRET } from '../support/test-app.ts';

const configured = (env: Record<string, string>) =>
  resolveSecret(loadConfig({ env: { SECRET: TEST_SECRET, ...env } }), {});

/** What the composition root binds for this configuration, over a backend that keeps no files itself. */
async function storeOf(
  env: Record<string, string>,
  persistence: Persistence = databaseLike(),
): Promise<FileStorage> {
  return (await buildContainer(configured(env), persistence)).get<FileStorage>(TYPES.FileStorage);
}

/** The in-memory backend without its own map, standing for a database backend and its large objects. */
function databaseLike(largeObjects?: FileStorage): Persistence {
  const { files: _files, ...persistence } = createInMemoryPersistence();
  return largeObjects ? { ...persistence, largeObjects } : persistence;
}

function refuses(env: Record<string, string>, message: string) {
  try {
    loadConfig({ env });
  } catch (error) {
    assert.instance(error, ConfigError);
    assert.match((error as Error).message, message);
    return;
  }
  assert.unreachable(`accepted ${JSON.stringify(env)}`);
}

test('storage.driver is local by default, in <database.dataDir>/files, made at the first write', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'datagate-driver-'));
  try {
    const store = await storeOf({ DATA_DIR: dataDir });
    assert.instance(store, LocalDiskFileStorage);
    await store.write(
      'files/a',
      (async function* () {
        yield new TextEncoder().encode('bytes');
      })(),
    );
    assert.is(await readFile(join(dataDir, 'files', 'files', 'a'), 'utf8'), 'bytes');
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
});

test('storage.local.root moves the folder', async () => {
  const root = await mkdtemp(join(tmpdir(), 'datagate-root-'));
  try {
    const store = await storeOf({ STORAGE_LOCAL_ROOT: root });
    await store.write('k', (async function* () {})());
    assert.is(await readFile(join(root, 'k'), 'utf8'), '');
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});

test("storage.driver postgres is the database's large objects, and needs a database", async () => {
  const largeObjects = createInMemoryPersistence().files!;
  assert.is(await storeOf({ STORAGE_DRIVER: 'postgres' }, databaseLike(largeObjects)), largeObjects);
  await storeOf({ STORAGE_DRIVER: 'postgres' }).then(
    () => assert.unreachable('a store without a database'),
    (error: Error) => assert.match(error.message, 'needs a database'),
  );
});

test('storage.driver s3 is a bucket, and needs one named', async () => {
  const store = await storeOf({
    STORAGE_DRIVER: 's3',
    STORAGE_S3_BUCKET: 'files',
    STORAGE_S3_REGION: 'eu-west-1',
  });
  assert.instance(store, S3FileStorage);
  (store as S3FileStorage).close();
  refuses({ STORAGE_DRIVER: 's3' }, 'storage.s3.bucket: is required with storage.driver: s3');
});

test('an S3 access key goes with its secret', () => {
  refuses({ STORAGE_S3_ACCESS_KEY_ID: 'AKIA' }, 'storage.s3.secretAccessKey: must be set with');
  refuses({ STORAGE_S3_SECRET_ACCESS_KEY: 'secret' }, 'storage.s3.accessKeyId: must be set with');
  refuses({ STORAGE_S3_ENDPOINT: 'ftp://minio' }, 'storage.s3.endpoint');
  refuses({ STORAGE_DRIVER: 'ftp' }, 'storage.driver');
});

test('the in-memory backend keeps files in its own map whatever the driver', async () => {
  const persistence = createInMemoryPersistence();
  for (const driver of ['local', 'postgres']) {
    assert.is(await storeOf({ STORAGE_DRIVER: driver }, persistence), persistence.files);
  }
});

test.run();
