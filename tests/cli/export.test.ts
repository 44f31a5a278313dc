import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { BIN, datagate, type Finished } from '../support/datagate-process.ts';

const cli = suite<{ dir: string; env: Record<string, string> }>('datagate export on the embedded database');

cli.before(async (context) => {
  context.dir = mkdtempSync(join(tmpdir(), 'datagate-export-'));
  context.env = { DATA_DIR: context.dir };
  // More rows than a pipe holds, so that an export is still writing when a reader that closes early goes
  // (the last case): some 450 KB of CSV, seven times a pipe's 64 KB.
  const sample = await datagate(['sample', 'cargos', '--rows', '5000'], context.env);
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
  assert.is(
    run.stderr,
    "datagate: option '--format <format>' argument 'xml' is invalid. Allowed choices are csv, json, ndjson; see 'datagate export --help'\n",
  );
});

cli(
  '--escape-formulas: a CSV for a spreadsheet, numbers left as numbers; refused for JSON',
  async ({ env }) => {
    const csv = await datagate(
      [
        'export',
        'cargos',
        '--fields',
        'temperature',
        '--filter',
        '{"temperature":{"_lt":0}}',
        '--escape-formulas',
      ],
      env,
    );
    assert.is(csv.code, 0, csv.stderr);
    const [header, ...temperatures] = csv.stdout.split('\r\n');
    assert.is(header, 'temperature');
    assert.ok(temperatures.length > 1, csv.stdout);
    for (const temperature of temperatures.slice(0, -1)) assert.match(temperature, /^-\d+(\.\d+)?$/);
    const json = await datagate(['export', 'cargos', '--format', 'json', '--escape-formulas'], env);
    assert.is(json.code, 1);
    assert.is(json.stdout, '');
    assert.match(json.stderr, /"escape_formulas" applies to export=csv only/);
  },
);

/** `datagate export`, its stdout closed by the reader after the first chunk, as `| head -1` does. */
function exportToAClosedPipe(args: string[], env: Record<string, string>): Promise<Finished> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'export', ...args], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.once('data', (chunk) => {
      stdout += chunk;
      child.stdout.destroy();
    });
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

cli('a reader that closes stdout early: exit code 1 and one line saying so', async ({ env }) => {
  for (const format of ['csv', 'json', 'ndjson']) {
    const run = await exportToAClosedPipe(['cargos', '--format', format], env);
    assert.is(run.code, 1, run.stderr);
    assert.match(run.stderr, /^cargos: the output closed after [\d,]+ rows\n$/, run.stderr);
  }
});

cli.run();
