import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { datagate } from '../support/datagate-process.ts';

const cli = suite<{ dir: string; env: Record<string, string> }>('datagate export on the embedded database');

cli.before(async (context) => {
  context.dir = mkdtempSync(join(tmpdir(), 'datagate-export-'));
  context.env = { DATA_DIR: context.dir };
  const sample = await datagate(['sample', 'cargos', '--rows', '20'], context.env);
  assert.is(sample.code, 0, sample.stderr);
});
cli.after(({ dir }) => rmSync(dir, { recursive: true, force: true }));

cli(
  'the file on stdout, the progress on stderr; the query options as the API takes them',
  async ({ env }) => {
    const run = await datagate(
      [
        'export',
        'cargos',
        '--fields',
        'id,is_deleted,shipment.number',
        '--filter',
        '{"is_deleted":{"_eq":false}}',
        '--sort',
        'shipment.number,id',
        '--limit',
        '3',
      ],
      env,
    );
    assert.is(run.code, 0, run.stderr);
    const lines = run.stdout.split('\r\n');
    assert.is(lines.length, 5, run.stdout);
    assert.is(lines[0], 'id,is_deleted,shipment');
    for (const line of lines.slice(1, 4))
      assert.match(line, /^[0-9a-f-]{36},false,"\{""number"":""S-\d+""\}"$/);
    assert.is(lines[4], '');
    // Not a terminal: no redrawn line, only the summary.
    assert.match(run.stderr, /^cargos: 3 rows, [\d,]+ rows\/s, done in [\d.]+ s\n$/);
  },
);

cli('a refusal is one line on stderr and nothing on stdout', async ({ env }) => {
  const run = await datagate(['export', 'cargos', '--format', 'xml'], env);
  assert.is(run.code, 1);
  assert.is(run.stdout, '');
  assert.match(run.stderr, /^datagate: export: "export" must be one of csv, json, ndjson; got "xml"\.\n$/);
});

cli.run();
