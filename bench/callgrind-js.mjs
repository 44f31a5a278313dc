// Instructions per request by function from a callgrind dump, JIT code named: callgrind sees V8's generated code
// as bare addresses, and a server started with `--perf-basic-prof` writes /tmp/perf-<pid>.map, which names
// them (`JS:*name file:line` optimized, `^` baseline, `~` interpreted; `RegExp:` a compiled regular expression).
// Callgrind follows calls and returns, JIT code included, so a function's inclusive count holds what it called
// synchronously; an async function's continuations count under the microtask queue that resumed them.
// Usage: node bench/callgrind-js.mjs <dump> <perf map> <requests> [--self] [--top=N] [--match=regexp]
// (dumps from bench/cpu-per-request.ts with PROBE_INSTRUCTIONS=1 and PROBE_NODE_ARGS=--perf-basic-prof).
// The counts are instructions, not time: a tight loop (a regular expression, hashing, copying) runs several
// instructions a cycle, branchy property access about one (bench/NOTES.md §7.10).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const [dump, mapFile, requests, ...flags] = process.argv.slice(2);
if (!dump || !mapFile || !requests)
  throw new Error('usage: callgrind-js.mjs <dump> <perf map> <requests> [flags]');
const option = (name) =>
  flags
    .find((flag) => flag.startsWith(`--${name}=`))
    ?.split('=')
    .slice(1)
    .join('=');
const inclusive = !flags.includes('--self');
const top = Number(option('top') ?? 60);
const match = option('match') ? new RegExp(option('match')) : null;

const symbols = readFileSync(mapFile, 'utf8')
  .split('\n')
  .map((line) => line.match(/^([0-9a-f]+) ([0-9a-f]+) (.*)$/))
  .filter(Boolean)
  .map(([, start, size, name]) => {
    const from = Number.parseInt(start, 16);
    return { start: from, end: from + Number.parseInt(size, 16), name };
  })
  .sort((a, b) => a.start - b.start);

/** The JIT symbol holding an address, by binary search; undefined outside every symbol. */
function symbolAt(address) {
  let low = 0;
  let high = symbols.length - 1;
  while (low <= high) {
    const mid = (low + high) >> 1;
    const symbol = symbols[mid];
    if (address < symbol.start) high = mid - 1;
    else if (address >= symbol.end) low = mid + 1;
    else return symbol.name;
  }
  return undefined;
}

const annotated = execFileSync(
  'callgrind_annotate',
  [`--inclusive=${inclusive ? 'yes' : 'no'}`, '--threshold=100', dump],
  { encoding: 'utf8', maxBuffer: 1 << 28 },
);
const counts = new Map();
for (const line of annotated.split('\n')) {
  const row = line.match(/^\s*([\d,]+)\s+(?:\([^)]*\)\s+)?(.*)$/);
  if (!row || row[2].includes('PROGRAM TOTALS')) continue;
  let name = row[2]
    .split(' [')[0]
    .trim()
    .replace(/^\?\?\?:/, '');
  const address = name.match(/^0x([0-9a-f]+)('\d+)?$/);
  if (address) name = symbolAt(Number.parseInt(address[1], 16)) ?? '(JIT code, unnamed)';
  counts.set(name, (counts.get(name) ?? 0) + Number(row[1].replaceAll(',', '')));
}
const rows = [...counts].filter(([name]) => !match || match.test(name)).sort((a, b) => b[1] - a[1]);
for (const [name, count] of rows.slice(0, top)) {
  console.log(`${(count / Number(requests) / 1000).toFixed(2).padStart(9)}k  ${name.slice(0, 160)}`);
}
