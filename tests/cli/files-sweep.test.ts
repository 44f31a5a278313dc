import { mkdtempSync, rmSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { LocalDiskFileStorage } from '../../src/adapters/local-disk/local-disk-file-storage.ts';
import { openEmbeddedPostgres } from '../../src/adapters/persistence/mikro-orm/embedded-postgres.ts';
import { datagate } from '../support/datagate-process.ts';

const KEPT = 'f0000000-0000-4000-8000-000000000001';
const GONE = 'f0000000-0000-4000-8000-000000000002';
const BARE = 'f0000000-0000-4000-8000-000000000003';
const STALE_UPLOAD = 'tmp/0e2a4d8c-0000-4000-8000-000000000001';
const FRESH_UPLOAD = 'tmp/0e2a4d8c-0000-4000-8000-000000000002';

async function* bytes(size: number): AsyncIterable<Uint8Array> {
  yield new Uint8Array(size);
}

async function keys(storage: LocalDiskFileStorage): Promise<string[]> {
  const found: string[] = [];
  for await (const object of storage.list('')) found.push(object.key);
  return found;
}

type Context = { dir: string; env: Record<string, string>; storage: LocalDiskFileStorage };

const cli = suite<Context>('datagate files sweep on the embedded database');

/**
 * Three file rows with their bytes in the default store (a folder in DATA_DIR); then one row deleted by
 * SQL (its bytes and variant are orphans), the bytes of another removed (a row without bytes), a key no
 * row ever had, an upload left in tmp/ two hours ago and one just written.
 */
cli.before(async (context) => {
  context.dir = mkdtempSync(join(tmpdir(), 'datagate-sweep-'));
  context.env = { DATA_DIR: context.dir };
  const migrate = await datagate(['migrate'], context.env);
  assert.is(migrate.code, 0, migrate.stderr);
  const storage = new LocalDiskFileStorage(join(context.dir, 'files'));
  context.storage = storage;
  const embedded = await openEmbeddedPostgres(context.dir);
  try {
    for (const id of [KEPT, GONE, BARE])
      await embedded.db.query(
        `insert into "datagate_files" ("id", "filename_disk", "filename_download") values ($1, $2, 'a.bin')`,
        [id, `files/${id}`],
      );
    await embedded.db.query(`delete from "datagate_files" where "id" = $1`, [GONE]);
  } finally {
    await embedded.close();
  }
  await storage.write(`files/${KEPT}`, bytes(10));
  await storage.write(`variants/${KEPT}/a1`, bytes(3));
  await storage.write(`files/${GONE}`, bytes(20));
  await storage.write(`variants/${GONE}/a1`, bytes(4));
  await storage.write('files/stray', bytes(1));
  await storage.write(STALE_UPLOAD, bytes(7));
  const twoHoursAgo = new Date(Date.now() - 2 * 60 * 60 * 1000);
  utimesSync(join(context.dir, 'files', STALE_UPLOAD), twoHoursAgo, twoHoursAgo);
  await storage.write(FRESH_UPLOAD, bytes(5));
});
cli.after(({ dir }) => rmSync(dir, { recursive: true, force: true }));

cli(
  'reports the orphans and the rows without bytes, a summary with counts and bytes, deletes nothing',
  async ({ env, storage }) => {
    const before = await keys(storage);
    const run = await datagate(['files', 'sweep'], env);
    assert.is(run.code, 0, run.stderr);
    assert.is(run.stderr, '', 'no progress off a terminal');
    assert.is(
      run.stdout,
      [
        `orphan files/${GONE} (20 bytes): no row`,
        'orphan files/stray (1 byte): no row',
        `orphan variants/${GONE}/a1 (4 bytes): its file's row is gone`,
        `orphan ${STALE_UPLOAD} (7 bytes): an upload that never finished`,
        `missing files/${BARE}: the file ${BARE} has no bytes (reported only)`,
        'Checked 7 keys and 2 rows.',
        'files/: 2 orphans, 21 bytes',
        'variants/: 1 orphan, 4 bytes',
        'tmp/: 1 orphan, 7 bytes',
        'rows without bytes: 1 (reported only, never deleted)',
        'Nothing deleted: run again with --delete to remove the orphans.',
        '',
      ].join('\n'),
    );
    assert.equal(await keys(storage), before);
  },
);

cli('--json prints a JSON object a line, the summary last', async ({ env }) => {
  const run = await datagate(['files', 'sweep', '--json', '--older-than', '3h'], env);
  assert.is(run.code, 0, run.stderr);
  const lines = run.stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
  assert.equal(
    lines.map((line) => line.key ?? line.type),
    [`files/${GONE}`, 'files/stray', `variants/${GONE}/a1`, `files/${BARE}`, 'summary'],
  );
  assert.equal(lines[0], {
    type: 'orphan',
    area: 'files/',
    key: `files/${GONE}`,
    size: 20,
    modified_at: lines[0].modified_at,
    deleted: false,
  });
  assert.equal(lines.at(-1), {
    type: 'summary',
    deleted: false,
    orphans: {
      'files/': { count: 2, bytes: 21 },
      'variants/': { count: 1, bytes: 4 },
      'tmp/': { count: 0, bytes: 0 },
    },
    missing_bytes: 1,
    keys_checked: 7,
    rows_checked: 2,
  });
});

cli(
  '--delete removes the orphans, keeps what a row needs and the upload in progress',
  async ({ env, storage }) => {
    const run = await datagate(['files', 'sweep', '--delete'], env);
    assert.is(run.code, 0, run.stderr);
    assert.match(run.stdout, new RegExp(`^deleted files/${GONE} \\(20 bytes\\): no row$`, 'm'));
    assert.match(run.stdout, /^Deleted 4 orphans\.$/m);
    assert.equal(await keys(storage), [`files/${KEPT}`, FRESH_UPLOAD, `variants/${KEPT}/a1`]);
    const again = await datagate(['files', 'sweep'], env);
    assert.match(
      again.stdout,
      /^missing files\/\S+: the file \S+ has no bytes \(reported only\)\nChecked 3 keys/m,
    );
    assert.match(again.stdout, /^Nothing to delete\.$/m);
  },
);

cli.run();
