// Runs the uvu suite under tsx and ends with the line CI reads: "N passed, N failed, N skipped".
// uvu prints a summary per process; a file that throws on import prints none, so that counts as a failure.
import { spawn } from 'node:child_process';
import { stripVTControlCharacters } from 'node:util';

const args = process.argv.slice(2);
const dir = args[0] ?? 'tests';
const pattern = args[1] ?? '[.]test[.]ts$';
// 14 minutes: the whole run takes about 13 on a 2-core box, and CI (npm ci included) must end within 15.
const timeoutMs = Number(process.env.TEST_TIMEOUT_MS ?? 840_000);

const uvuArgs = [
  '--import',
  'tsx',
  'node_modules/uvu/bin.js',
  dir,
  ...(pattern ? [pattern] : []),
  '--no-color',
];
const child = spawn(process.execPath, uvuArgs, {
  env: { ...process.env, FORCE_COLOR: '0', NODE_ENV: process.env.NODE_ENV ?? 'test' },
  stdio: ['ignore', 'pipe', 'pipe'],
});

let output = '';
const collect = (stream, sink) =>
  stream.on('data', (chunk) => {
    output += chunk;
    sink.write(chunk);
  });
collect(child.stdout, process.stdout);
collect(child.stderr, process.stderr);

const timer = setTimeout(() => {
  process.stderr.write(`\ntest run exceeded ${timeoutMs} ms, stopping it\n`);
  child.kill('SIGKILL');
}, timeoutMs);

child.on('close', (code) => {
  clearTimeout(timer);
  const plain = stripVTControlCharacters(output);
  const last = (label) => {
    const all = [...plain.matchAll(new RegExp(`^\\s*${label}:\\s+(\\d+)`, 'gm'))];
    return all.length ? Number(all[all.length - 1][1]) : undefined;
  };
  const total = last('Total');
  const passed = last('Passed');
  const skipped = last('Skipped') ?? 0;
  let failed;
  if (total === undefined || passed === undefined) {
    failed = 1;
  } else {
    failed = total - passed;
    if (code !== 0 && failed === 0) failed = 1;
  }
  // Skipped cases (PostgreSQL without TEST_DATABASE_URL, a browser test without Chromium) are named in the
  // line even when there are none, so a run that left something out never looks complete.
  console.log(`\n${passed ?? 0} passed, ${failed} failed, ${skipped} skipped`);
  process.exit(failed > 0 ? 1 : 0);
});
