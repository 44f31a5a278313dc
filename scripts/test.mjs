// Runs the uvu suite under tsx and ends with the line CI reads: "N passed, N failed, N skipped".
// The test files are cut into groups, each run by its own uvu process, `TEST_JOBS` of them at a time (2 by
// default: the suite waits on PostgreSQL and child processes as much as it computes, so two processes use a
// 2-core box better than one). Each group's output is printed whole when it ends, so logs stay readable.
// uvu prints a summary per process; a group that prints none (a file that throws on import, a crash) counts
// as a failure. Before the totals it names the slowest groups and the slowest files (`TEST_SLOWEST`, 10 by
// default), so the next cut of the suite's time starts from a measure.
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, relative, sep } from 'node:path';
import { stripVTControlCharacters } from 'node:util';

const args = process.argv.slice(2);
const dir = args[0] ?? 'tests';
const pattern = new RegExp(args[1] ?? '[.]test[.]ts$', 'i');
// 14 minutes for the whole run: CI (npm ci included) must end within 15.
const timeoutMs = Number(process.env.TEST_TIMEOUT_MS ?? 840_000);
const jobs = Math.max(1, Number(process.env.TEST_JOBS ?? Math.min(2, availableParallelism())));
/**
 * A folder with more test files than this is cut into chunks of about this many, so no group dominates.
 * Each group pays for starting a process and importing its files' modules (2–8 s here, ~180 s in all with
 * chunks of 8), so chunks are no smaller than balance needs.
 */
const GROUP_FILES = 16;
/** Folders whose files are few but long (each browser test drives Chromium for seconds): started first. */
const LONG_FIRST = ['browser'];

/** Every test file under `dir` whose path relative to it matches, as uvu finds them. */
function testFiles(root) {
  const found = [];
  const walk = (folder) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      if (entry.name === 'node_modules' || entry.name.startsWith('.git')) continue;
      const path = join(folder, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (pattern.test(relative(root, path))) found.push(relative(root, path));
    }
  };
  walk(root);
  return found.sort((a, b) => a.localeCompare(b));
}

/** The files by first folder, big folders cut into chunks; longest first, so no long group ends the run alone. */
function groups(files) {
  const byFolder = new Map();
  for (const file of files) {
    const folder = file.includes(sep) ? file.slice(0, file.indexOf(sep)) : '.';
    byFolder.set(folder, [...(byFolder.get(folder) ?? []), file]);
  }
  const all = [];
  for (const [folder, list] of byFolder) {
    const chunks = Math.ceil(list.length / GROUP_FILES);
    for (let chunk = 0; chunk < chunks; chunk++) {
      const part = list.filter((_, index) => index % chunks === chunk);
      all.push({ name: chunks > 1 ? `${folder} ${chunk + 1}/${chunks}` : folder, folder, files: part });
    }
  }
  const first = (group) => LONG_FIRST.includes(group.folder);
  return all.sort((a, b) => first(b) - first(a) || b.files.length - a.files.length);
}

const literal = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const children = new Set();

/** How long a test process may live on after uvu printed its totals. */
const LINGER_MS = 30_000;

function runGroup(group) {
  const started = Date.now();
  const only = `^(?:${group.files.map(literal).join('|')})$`;
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'node_modules/uvu/bin.js', dir, only, '--no-color'],
    {
      env: { ...process.env, FORCE_COLOR: '0', NODE_ENV: process.env.NODE_ENV ?? 'test' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  children.add(child);
  let output = '';
  let lingering;
  // uvu imports every file first, then runs them in order, printing each one's name as it starts: the time
  // between two names is what the first file's suites took.
  const named = new Set(group.files);
  const fileStarts = [];
  child.stdout.on('data', (chunk) => {
    const at = Date.now();
    for (const line of stripVTControlCharacters(String(chunk)).split('\n'))
      if (named.has(line.trim())) fileStarts.push({ file: line.trim(), at });
    output += chunk;
    // uvu's last line; a process still alive long after it is held by what a suite left open (a failed
    // `before` never reaching the `after` that closes its server), and would otherwise run into the limit.
    if (lingering === undefined && /Duration:\s+[\d.]+m?s\s*$/.test(stripVTControlCharacters(output))) {
      lingering = setTimeout(() => {
        output += `\nthe process was still running ${LINGER_MS / 1000} s after its totals: something a suite started was left open; stopped\n`;
        child.kill('SIGKILL');
      }, LINGER_MS);
    }
  });
  child.stderr.on('data', (chunk) => {
    output += chunk;
  });
  return new Promise((resolve) => {
    child.on('close', (code) => {
      clearTimeout(lingering);
      children.delete(child);
      const ended = Date.now();
      const seconds = (ended - started) / 1000;
      const files = fileStarts.map(({ file, at }, index) => ({
        file,
        seconds: ((fileStarts[index + 1]?.at ?? ended) - at) / 1000,
      }));
      process.stdout.write(
        `\n── ${group.name} (${group.files.length} files, ${seconds.toFixed(0)} s)\n${output}`,
      );
      const plain = stripVTControlCharacters(output);
      const idle = filesWithoutSuites(plain, group.files);
      if (idle.length)
        process.stdout.write(`files that ran no suite (a missing \`.run()\`?): ${idle.join(', ')}\n`);
      const counted = tally(plain, code);
      resolve({ ...counted, failed: counted.failed + idle.length, name: group.name, seconds, files });
    });
  });
}

/**
 * The files uvu named but ran no suite of: the next line after a file's name is another file's name or the
 * totals. Such a file counts as 0 passed, which would read as green; each is a failure instead.
 */
function filesWithoutSuites(plain, files) {
  const lines = plain.split('\n').filter((line) => line.trim() !== '');
  const named = new Set(files);
  return lines.filter((line, index) => {
    if (!named.has(line)) return false;
    const next = lines[index + 1]?.trim() ?? '';
    return next === '' || named.has(next) || next.startsWith('Total:');
  });
}

/** uvu's totals of one process; no totals, or a failing exit with none failed, is one failure. */
function tally(plain, code) {
  const last = (label) => {
    const all = [...plain.matchAll(new RegExp(`^\\s*${label}:\\s+(\\d+)`, 'gm'))];
    return all.length ? Number(all[all.length - 1][1]) : undefined;
  };
  const total = last('Total');
  const passed = last('Passed');
  const skipped = last('Skipped') ?? 0;
  if (total === undefined || passed === undefined) return { passed: passed ?? 0, failed: 1, skipped };
  const failed = total - passed;
  return { passed, failed: code !== 0 && failed === 0 ? 1 : failed, skipped };
}

const queue = groups(testFiles(dir));
const results = [];
let timedOut = false;
const timer = setTimeout(() => {
  timedOut = true;
  process.stderr.write(`\ntest run exceeded ${timeoutMs} ms, stopping it\n`);
  for (const child of children) child.kill('SIGKILL');
}, timeoutMs);

const worker = async () => {
  for (let group = queue.shift(); group && !timedOut; group = queue.shift())
    results.push(await runGroup(group));
};
await Promise.all(Array.from({ length: jobs }, worker));
clearTimeout(timer);

const sum = (key) => results.reduce((total, result) => total + result[key], 0);
const passed = sum('passed');
const failed = sum('failed') + (timedOut ? 1 : 0);
const skipped = sum('skipped');
const slowest = [...results].sort((a, b) => b.seconds - a.seconds).slice(0, 5);
console.log(`\nslowest groups: ${slowest.map((r) => `${r.name} ${r.seconds.toFixed(0)} s`).join(', ')}`);
const slowestFiles = results
  .flatMap((result) => result.files)
  .sort((a, b) => b.seconds - a.seconds)
  .slice(0, Number(process.env.TEST_SLOWEST ?? 10));
console.log(`slowest files: ${slowestFiles.map((f) => `${f.file} ${f.seconds.toFixed(0)} s`).join(', ')}`);
const failing = results.filter((result) => result.failed > 0).map((result) => result.name);
if (failing.length) console.log(`groups with failures: ${failing.join(', ')}`);
// Skipped cases (PostgreSQL without TEST_DATABASE_URL, a browser test without Chromium) are named in the
// line even when there are none, so a run that left something out never looks complete.
console.log(`\n${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failed > 0 ? 1 : 0);
