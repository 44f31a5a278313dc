/**
 * Import throughput (issue 17, docs/decisions/0035-streamed-import.md): a CSV of `cargos` rows imported on
 * PostgreSQL through ImportItemsHandler as `datagate import` runs it (admin, all or nothing), the file read
 * from disk as a stream. Prints rows/s and the process's peak RSS; not a test.
 *
 *   node --import tsx bench/import.ts                  # 1,000,000 rows, realtime events recorded
 *   IMPORT_ROWS=200000 IMPORT_EVENTS=0 node --import tsx bench/import.ts
 *   IMPORT_ACCOUNTABILITY=all node --import tsx bench/import.ts   # with an activity entry and revision per row
 *
 * Needs PostgreSQL (DATABASE_URL's server, default postgresql://postgres@127.0.0.1:5432/postgres) with the
 * right to create databases: it creates `datagate_bench_import_<pid>` and drops it at the end.
 */
import { once } from 'node:events';
import { createReadStream, createWriteStream } from 'node:fs';
import { rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { StreamingImportRecordReader } from '../src/adapters/import/streaming-import-record-reader.ts';
import { openMikroOrmPersistence } from '../src/adapters/persistence/mikro-orm/open-mikro-orm-persistence.ts';
import { CARGOS_COLLECTION, createSampleCargos } from '../src/adapters/persistence/postgres/sample-cargos.ts';
import { ImportItemsHandler } from '../src/application/items/import-items.ts';
import { ImportSlots } from '../src/application/items/import-slots.ts';
import { ReadRules } from '../src/application/items/read-rules.ts';
import { WriteRules } from '../src/application/items/write-rules.ts';
import { SYSTEM_ACCOUNTABILITY } from '../src/domain/accountability.ts';
import type { AccountabilityMode } from '../src/domain/schema/collection-schema.ts';

const rows = Number(process.env.IMPORT_ROWS ?? 1_000_000);
const events = process.env.IMPORT_EVENTS !== '0';
const chunkRows = Number(process.env.IMPORT_CHUNK_ROWS ?? 5000);
/** `cargos`' `meta.accountability` (docs/api.md §14): unset, none (the issue's "revisions off"). */
const accountability = accountabilityMode(process.env.IMPORT_ACCOUNTABILITY ?? 'none');
/** `values`: the writer's multi-row VALUES insert instead of insertBulk, to compare the two. */
const statement = process.env.IMPORT_STATEMENT ?? 'recordset';
const serverUrl = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const database = `datagate_bench_import_${process.pid}`;
const file = join(tmpdir(), `${database}.csv`);

function accountabilityMode(name: string): AccountabilityMode {
  if (name === 'none') return null;
  if (name === 'all' || name === 'activity') return name;
  throw new Error(`IMPORT_ACCOUNTABILITY: none, activity or all, not ${name}`);
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

/** The CSV, written as `datagate export` would: a header, then one line per cargo. */
async function writeCsv() {
  const out = createWriteStream(file);
  out.write('description,temperature,is_deleted,shipment\n');
  for (let index = 0; index < rows; index++) {
    const line = `cargo ${index},${((index % 400) / 10 - 20).toFixed(1)},${index % 10 === 0},${(index % 40) + 1}\n`;
    if (!out.write(line)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
}

await admin(`create database "${database}"`);
const url = new URL(serverUrl);
url.pathname = `/${database}`;
const persistence = await openMikroOrmPersistence({
  url: url.toString(),
  dataDir: tmpdir(),
  itemEvents: events && { replayWindowMs: 3_600_000 },
});
try {
  await persistence.migrate();
  await createSampleCargos(persistence.orm, { rows: 2000 });
  await persistence.schema.refresh();
  await persistence.schemaEditor.setAccountability(CARGOS_COLLECTION, accountability);
  await writeCsv();
  const size = (await stat(file)).size;
  const handler = new ImportItemsHandler(
    persistence.schema,
    new ReadRules(persistence.permissions),
    new WriteRules(persistence.permissions),
    persistence.items,
    new StreamingImportRecordReader(),
    { now: () => new Date() },
    new ImportSlots(1),
    { maxBytes: 2 ** 40, maxRows: rows, chunkRows, maxRecordChars: 1 << 20 },
  );
  if (statement === 'values') {
    const write = persistence.items.write.bind(persistence.items);
    persistence.items.write = (work) =>
      write((writer) =>
        work(Object.assign(Object.create(writer), { insertBulk: writer.insert.bind(writer) })),
      );
  }
  const rssBefore = process.memoryUsage().rss;
  let peakRss = rssBefore;
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
  }, 50);
  const started = performance.now();
  const result = await handler.execute(SYSTEM_ACCOUNTABILITY, {
    collection: CARGOS_COLLECTION,
    format: 'csv',
    bytes: createReadStream(file, { highWaterMark: 256 * 1024 }),
    mode: 'all',
  });
  const seconds = (performance.now() - started) / 1000;
  clearInterval(sampler);
  console.log(
    JSON.stringify({
      rows: result.inserted,
      fileMB: +(size / 1024 ** 2).toFixed(1),
      events,
      statement,
      accountability,
      chunkRows,
      seconds: +seconds.toFixed(2),
      rowsPerSecond: Math.round(result.inserted / seconds),
      rssBeforeMB: Math.round(rssBefore / 1024 ** 2),
      peakRssMB: Math.round(peakRss / 1024 ** 2),
    }),
  );
} finally {
  await persistence.close();
  await rm(file, { force: true });
  await admin(`drop database if exists "${database}" with (force)`);
}
