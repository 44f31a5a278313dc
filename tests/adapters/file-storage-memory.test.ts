import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import * as assert from 'uvu/assert';
import { LocalDiskFileStorage } from '../../src/adapters/local-disk/local-disk-file-storage.ts';
import { userTablesDatabase } from '../../src/adapters/persistence/postgres/postgres-collections.ts';
import { PostgresLargeObjectStorage } from '../../src/adapters/persistence/postgres/postgres-large-object-storage.ts';
import type { FileStorage } from '../../src/application/ports/file-storage.ts';
import { databaseBackends } from '../support/databases.ts';
import { generatedBytes, sha256Of } from '../support/generated-bytes.ts';
import { startS3TestServer } from '../support/s3-test-server.ts';
import { skippableSuite } from '../support/skippable-suite.ts';

/**
 * The real stores hold a file's bytes a slice at a time (docs/decisions/0038): writing then reading
 * 128 MB (FILE_STORAGE_MEMORY_MB changes it; `make soak-sizes` runs 512) raises this process's resident
 * memory by well under 64 MB, half the file: a store holding the file would rise by all of it. RSS is sampled every 4 MB, after a
 * full collection, so garbage not yet collected does not count, only what the store holds. PGlite is left
 * out: its database lives in this process, so the file itself is in this process's memory; s3rver runs in
 * a process of its own.
 */

const FILE_BYTES = Number(process.env.FILE_STORAGE_MEMORY_MB ?? 128) * 1024 * 1024;
/** The client's chunks, as a socket hands them over. */
const CHUNK_BYTES = 64 * 1024;
const RSS_GROWTH_MAX_MB = 64;
const MEASURE_EVERY = 4 * 1024 * 1024;
const WARM_UP_BYTES = 8 * 1024 * 1024;

setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

function residentAfterCollection(): number {
  collectGarbage();
  return process.memoryUsage.rss();
}

/** Passes the bytes on, noting the resident memory every few MB. */
async function* measured(bytes: AsyncIterable<Uint8Array>, peak: { rss: number }): AsyncIterable<Uint8Array> {
  let sinceMeasure = 0;
  for await (const chunk of bytes) {
    sinceMeasure += chunk.byteLength;
    if (sinceMeasure >= MEASURE_EVERY) {
      sinceMeasure = 0;
      peak.rss = Math.max(peak.rss, residentAfterCollection());
    }
    yield chunk;
  }
}

type MemoryTarget = {
  name: string;
  skip?: string;
  open(): Promise<{ store: FileStorage; close(): Promise<void> }>;
};

const localDisk: MemoryTarget = {
  name: 'local disk',
  open: async () => {
    const root = await mkdtemp(join(tmpdir(), 'datagate-files-memory-'));
    return { store: new LocalDiskFileStorage(root), close: () => rm(root, { recursive: true, force: true }) };
  },
};

const server = databaseBackends().find((backend) => backend.name === 'postgresql')!;
const serverLargeObjects: MemoryTarget = {
  name: 'PostgreSQL large objects',
  ...(server.skip ? { skip: server.skip } : {}),
  open: async () => {
    const target = server.persistence();
    const persistence = await target.fresh();
    const store = new PostgresLargeObjectStorage(userTablesDatabase(persistence.orm));
    return {
      store,
      close: async () => {
        await store.delete('memory/big');
        await target.dispose();
      },
    };
  },
};

const s3: MemoryTarget = {
  name: 'S3 (s3rver)',
  open: async () => {
    const s3rver = await startS3TestServer();
    return { store: s3rver.store(), close: () => s3rver.close() };
  },
};

for (const target of [localDisk, serverLargeObjects, s3]) {
  const test = skippableSuite(`file storage memory on ${target.name}`, target.skip);
  test(`writing and reading ${FILE_BYTES / 1024 ** 2} MB raises RSS by less than ${RSS_GROWTH_MAX_MB} MB`, async () => {
    const { store, close } = await target.open();
    try {
      // Warm up: what a first write and read allocate for good (a connection's buffers, code compiled) is
      // in place before the baseline, so the growth measured is what the file's size costs.
      await store.write('memory/warm', generatedBytes(WARM_UP_BYTES, CHUNK_BYTES));
      await sha256Of((await store.read('memory/warm'))!);
      await store.delete('memory/warm');
      const before = residentAfterCollection();
      const peak = { rss: before };
      const written = await store.write(
        'memory/big',
        measured(generatedBytes(FILE_BYTES, CHUNK_BYTES), peak),
      );
      assert.is(written.size, FILE_BYTES);
      const read = await sha256Of(measured((await store.read('memory/big'))!, peak));
      assert.is(read, await sha256Of(generatedBytes(FILE_BYTES, 1024 * 1024)));
      const growthMb = (peak.rss - before) / 1024 ** 2;
      console.log(`  ${target.name}: RSS grew by ${growthMb.toFixed(1)} MB at most`);
      assert.ok(growthMb < RSS_GROWTH_MAX_MB, `RSS grew by ${growthMb.toFixed(1)} MB`);
    } finally {
      await close();
    }
  });
  test.run();
}
