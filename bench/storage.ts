/**
 * Files' bytes (issue 19, docs/decisions/0038-file-storage-adapters.md): upload and download MB/s of each
 * store behind the storage port — local disk, large objects on embedded PGlite and on a PostgreSQL server,
 * S3 (s3rver in a process of its own) — against what the machine does without datagate: `cp` of the same
 * file, and on the server `lo_import` / `lo_export` / `pg_read_binary_file` of it. The process's peak RSS
 * per case. Not a test.
 *
 *   make bench-storage                              # 200 MB
 *   BENCH_STORAGE_MB=50 node --import tsx bench/storage.ts
 *
 * Needs PostgreSQL on DATABASE_URL's server (default postgresql://postgres@127.0.0.1:5432/postgres) on this
 * machine, as a superuser (the server-side file functions): it creates `datagate_bench_storage_<pid>` and
 * drops it at the end. Writes `bench/results/<date>-storage[-BENCH_TAG].md`.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createReadStream, createWriteStream } from 'node:fs';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import { LocalDiskFileStorage } from '../src/adapters/local-disk/local-disk-file-storage.ts';
import { openMikroOrmPersistence } from '../src/adapters/persistence/mikro-orm/open-mikro-orm-persistence.ts';
import { userTablesDatabase } from '../src/adapters/persistence/postgres/postgres-collections.ts';
import type { FileStorage } from '../src/application/ports/file-storage.ts';
import { generatedBytes } from '../tests/support/generated-bytes.ts';
import { startS3TestServer } from '../tests/support/s3-test-server.ts';

const ROOT = new URL('..', import.meta.url).pathname;
const MEGABYTES = Number(process.env.BENCH_STORAGE_MB ?? 200);
const FILE_BYTES = MEGABYTES * 1024 * 1024;
const serverUrl = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const database = `datagate_bench_storage_${process.pid}`;
const tag = process.env.BENCH_TAG ? `-${process.env.BENCH_TAG}` : '';

type Measure = { seconds: number; peakRssMb: number };
type Row = { store: string; upload?: Measure; download?: Measure; note?: string };

const log = (line: string) => process.stderr.write(`${line}\n`);

/** Runs `work`, sampling this process's RSS every 20 ms. */
async function measured(work: () => Promise<unknown>): Promise<Measure> {
  let peak = process.memoryUsage.rss();
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 20);
  const start = performance.now();
  try {
    await work();
  } finally {
    clearInterval(sampler);
  }
  return { seconds: (performance.now() - start) / 1000, peakRssMb: peak / 1024 ** 2 };
}

async function drained(bytes: AsyncIterable<Uint8Array>): Promise<number> {
  let total = 0;
  for await (const chunk of bytes) total += chunk.byteLength;
  return total;
}

/** Upload from the file on disk (as a socket would hand it over, 64 KiB at a time), then download it. */
async function storeRow(name: string, store: FileStorage, file: string, note?: string): Promise<Row> {
  log(`${name}: upload`);
  const upload = await measured(() =>
    store.write('bench/file', createReadStream(file, { highWaterMark: 64 * 1024 })),
  );
  log(`${name}: download`);
  const download = await measured(async () => {
    const read = await drained((await store.read('bench/file'))!);
    if (read !== FILE_BYTES) throw new Error(`${name} read ${read} bytes of ${FILE_BYTES}`);
  });
  await store.delete('bench/file');
  return { store: name, upload, download, ...(note ? { note } : {}) };
}

async function run(command: string, args: string[]): Promise<void> {
  const child = spawn(command, args, { stdio: 'inherit' });
  const [code] = await once(child, 'exit');
  if (code !== 0) throw new Error(`${command} exited ${code}`);
}

async function admin(statement: string) {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

async function main() {
  const folder = await mkdtemp(join(tmpdir(), 'datagate-bench-storage-'));
  // The server's own functions read and write these files as the postgres user.
  await chmod(folder, 0o777);
  const file = join(folder, 'source.bin');
  const rows: Row[] = [];
  try {
    log(`writing a ${MEGABYTES} MB file`);
    const out = createWriteStream(file);
    for await (const chunk of generatedBytes(FILE_BYTES, 1024 * 1024)) {
      if (!out.write(chunk)) await once(out, 'drain');
    }
    out.end();
    await once(out, 'finish');
    await chmod(file, 0o644);

    const copy = join(folder, 'copy.bin');
    rows.push({
      store: '`cp` (floor of the local disk)',
      upload: await measured(() => run('cp', [file, copy])),
      download: await measured(() => run('cp', [copy, '/dev/null'])),
      note: 'upload: `cp` to a file, no fsync (the local store syncs the file and its folder); download: `cp` to /dev/null',
    });
    await rm(copy);

    rows.push(await storeRow('local disk', new LocalDiskFileStorage(join(folder, 'files')), file));

    log('PGlite');
    await mkdir(join(folder, 'pglite'));
    const embedded = await openMikroOrmPersistence({ dataDir: join(folder, 'pglite') });
    try {
      await embedded.migrate();
      rows.push(
        await storeRow(
          'large objects, embedded PGlite',
          embedded.largeObjects!,
          file,
          'the database lives in this process: its pages count in this RSS',
        ),
      );
    } finally {
      await embedded.close();
    }

    log('PostgreSQL');
    await admin(`create database "${database}"`);
    const url = new URL(serverUrl);
    url.pathname = `/${database}`;
    const server = await openMikroOrmPersistence({ url: url.toString(), dataDir: folder });
    try {
      await server.migrate();
      const db = userTablesDatabase(server.orm);
      let oid = 0;
      const imported = await measured(async () => {
        const result = await sql<{ oid: number }>`select lo_import(${file}) as "oid"`.execute(db);
        oid = Number(result.rows[0]!.oid);
      });
      const exported = join(folder, 'exported.bin');
      const exportedMeasure = await measured(() =>
        sql`select lo_export(${oid}::oid, ${exported})`.execute(db),
      );
      rows.push({
        store: '`lo_import` / `lo_export` (floor of large objects: in the server, no client)',
        upload: imported,
        download: exportedMeasure,
      });
      await sql`select lo_unlink(${oid}::oid)`.execute(db);
      await rm(exported);
      rows.push({
        store: '`pg_read_binary_file` (the server reads the file, no client)',
        download: await measured(() => sql`select length(pg_read_binary_file(${file}))`.execute(db)),
      });
      rows.push(await storeRow('large objects, PostgreSQL 15 server', server.largeObjects!, file));
    } finally {
      await server.close();
      await admin(`drop database if exists "${database}" with (force)`);
    }

    log('S3');
    const s3rver = await startS3TestServer();
    try {
      rows.push(
        await storeRow(
          'S3 (s3rver, its own process)',
          s3rver.store(),
          file,
          's3rver writes each part to disk',
        ),
      );
    } finally {
      await s3rver.close();
    }
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
  await report(rows);
}

async function report(rows: Row[]) {
  const rate = (measure?: Measure) => (measure ? `${(MEGABYTES / measure.seconds).toFixed(0)} MB/s` : '—');
  const peak = (row: Row) => Math.max(row.upload?.peakRssMb ?? 0, row.download?.peakRssMb ?? 0).toFixed(0);
  const date = new Date().toISOString().slice(0, 10);
  const text = `# File storage — ${date}

\`make bench-storage\` (issue 19, docs/decisions/0038-file-storage-adapters.md): a ${MEGABYTES} MB file uploaded
through the storage port from disk in 64 KiB chunks, then downloaded and dropped, per store; the floors do the
same copy without datagate. Node ${process.versions.node}, on one box with PostgreSQL 15 on 127.0.0.1.
Peak RSS is this process's (the client side; s3rver and the PostgreSQL server are other processes).

| store | upload | download | peak RSS | |
|---|---:|---:|---:|---|
${rows.map((row) => `| ${row.store} | ${rate(row.upload)} | ${rate(row.download)} | ${peak(row)} MB | ${row.note ?? ''} |`).join('\n')}
`;
  await mkdir(join(ROOT, 'bench/results'), { recursive: true });
  const target = join(ROOT, `bench/results/${date}-storage${tag}.md`);
  await writeFile(target, text);
  process.stdout.write(text);
  log(`written to ${target}`);
}

main().catch((error: Error) => {
  log(error.stack ?? error.message);
  process.exitCode = 1;
});
