// Instructions per request by function from a callgrind dump, JIT code named: callgrind sees V8's generated code
// as bare addresses, and a server started with `--perf-basic-prof` writes /tmp/perf-<pid>.map, which names
// them (`JS:*name file:line` optimized, `^` baseline, `~` interpreted; `RegExp:` a compiled regular expression).
// Callgrind follows calls and returns, JIT code included, so a function's inclusive count holds what it called
// synchronously; an async function's continuations count under the microtask queue that resumed them.
// Usage: node --import tsx bench/callgrind-js.ts <dump> <perf map> <requests> [--self] [--top=N] [--match=regexp]
// (dumps from bench/cpu-per-request.ts with PROBE_INSTRUCTIONS=1 and PROBE_NODE_ARGS=--perf-basic-prof).
// The counts are instructions, not time: a tight loop (a regular expression, hashing, copying) runs several
// instructions a cycle, branchy property access about one (bench/NOTES.md §7.10).
import { readFileSync } from 'node:fs';
import { instructionsByFunction } from './callgrind-functions.ts';

const [dump, mapFile, requests, ...flags] = process.argv.slice(2);
if (!dump || !mapFile || !requests)
  throw new Error('usage: callgrind-js.ts <dump> <perf map> <requests> [flags]');
const option = (name: string) =>
  flags
    .find((flag) => flag.startsWith(`--${name}=`))
    ?.split('=')
    .slice(1)
    .join('=');
const top = Number(option('top') ?? 60);
const pattern = option('match');
const match = pattern ? new RegExp(pattern) : null;

type JitSymbol = { start: number; end: number; name: string };
const symbols: JitSymbol[] = readFileSync(mapFile, 'utf8')
  .split('\n')
  .flatMap((line) => {
    const entry = /^([0-9a-f]+) ([0-9a-f]+) (.*)$/.exec(line);
    if (!entry) return [];
    const start = Number.parseInt(entry[1]!, 16);
    return [{ start, end: start + Number.parseInt(entry[2]!, 16), name: entry[3]! }];
  })
  .sort((a, b) => a.start - b.start);

/** The JIT symbol holding an address, by binary search; undefined outside every symbol. */
function symbolAt(address: number): string | undefined {
  let low = 0;
  let high = symbols.length - 1;
  while (low <= high) {
    const mid = (low + high) >> 1;
    const symbol = symbols[mid]!;
    if (address < symbol.start) high = mid - 1;
    else if (address >= symbol.end) low = mid + 1;
    else return symbol.name;
  }
  return undefined;
}

const named = new Map<string, number>();
for (const [name, count] of instructionsByFunction(dump, { inclusive: !flags.includes('--self') })) {
  const address = /^0x([0-9a-f]+)('\d+)?$/.exec(name);
  const jit = address ? (symbolAt(Number.parseInt(address[1]!, 16)) ?? '(JIT code, unnamed)') : name;
  named.set(jit, (named.get(jit) ?? 0) + count);
}
const rows = [...named].filter(([name]) => !match || match.test(name)).sort((a, b) => b[1] - a[1]);
for (const [name, count] of rows.slice(0, top)) {
  console.log(`${(count / Number(requests) / 1000).toFixed(2).padStart(9)}k  ${name.slice(0, 160)}`);
}
