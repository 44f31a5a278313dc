import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { datagate } from '../support/datagate-process.ts';

const cli = suite<{ dir: string; env: Record<string, string> }>('datagate import on the embedded database');

cli.before(async (context) => {
  context.dir = mkdtempSync(join(tmpdir(), 'datagate-import-'));
  context.env = { DATA_DIR: context.dir, IMPORT_CHUNK_ROWS: '2' };
  const sample = await datagate(['sample', 'cargos', '--rows', '0'], context.env);
  assert.is(sample.code, 0, sample.stderr);
});
cli.after(({ dir }) => rmSync(dir, { recursive: true, force: true }));

cli('imports a CSV file, its progress and summary on stderr, nothing on stdout', async ({ dir, env }) => {
  const file = join(dir, 'cargos.csv');
  writeFileSync(file, 'description,temperature\napples,4.5\npears,\nplums,-1\n');
  const run = await datagate(['import', 'cargos', file], env);
  assert.is(run.code, 0, run.stderr);
  assert.is(run.stdout, '');
  assert.match(run.stderr, /^cargos 3 rows imported in \d+\.\d s$/m);
});

cli('a bad row is one line naming it, exit code 1, nothing written', async ({ dir, env }) => {
  const file = join(dir, 'bad.ndjson');
  writeFileSync(file, '{"description":"a"}\n{"temperature":"hot"}\n');
  const run = await datagate(['import', 'cargos', file], env);
  assert.is(run.code, 1);
  assert.match(run.stderr, /^datagate: temperature: Row 2: Invalid value "hot"/m);
  const batch = await datagate(['import', 'cargos', file, '--batch', '--format', 'ndjson'], env);
  assert.is(batch.code, 1);
  assert.match(batch.stderr, /^rows 1–2 not imported: Row 2: /m);
  const ok = await datagate(['import', 'cargos', join(dir, 'cargos.csv')], env);
  assert.match(ok.stderr, /^cargos 3 rows imported/m);
});

cli('a file whose format the extension does not name needs --format', async ({ dir, env }) => {
  const file = join(dir, 'cargos.txt');
  writeFileSync(file, '[{"description":"a"}]');
  const refused = await datagate(['import', 'cargos', file], env);
  assert.is(refused.code, 1);
  assert.match(refused.stderr, /give --format csv\|json\|ndjson/);
  const run = await datagate(['import', 'cargos', file, '--format', 'json'], env);
  assert.is(run.code, 0, run.stderr);
  assert.match(run.stderr, /^cargos 1 row imported in /m);
});

cli('a missing file or a directory is one line naming it, before the database is opened', async ({ dir }) => {
  // A data directory nobody made: opening the database would create it.
  const env = { DATA_DIR: join(dir, 'never-opened') };
  const missing = await datagate(['import', 'cargos', join(dir, 'missing.csv')], env);
  assert.is(missing.code, 1);
  assert.is(missing.stderr, `datagate: ${join(dir, 'missing.csv')} cannot be read: no such file (ENOENT)\n`);
  mkdirSync(join(dir, 'folder.csv'));
  const folder = await datagate(['import', 'cargos', join(dir, 'folder.csv')], env);
  assert.is(folder.code, 1);
  assert.is(folder.stderr, `datagate: ${join(dir, 'folder.csv')} is a directory, not a file\n`);
  assert.not.ok(existsSync(env.DATA_DIR));
});

cli.run();
