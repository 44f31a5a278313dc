import { setFlagsFromString } from 'node:v8';

/**
 * How far V8 lets the old generation grow past what survived its last full collection before collecting again,
 * in percent. V8's own factor (up to 4× on a server-sized heap) let a read load that keeps ~35 MB alive fill
 * ~120 MB of old space with dead request objects first: 214–253 MB peak RSS. At 60 % the peak is 159–165 MB for
 * the same CPU per request within the noise (bench/results/2026-11-26-perf-notes.md; decision 0029). V8 reads
 * the flag at every collection, so it can be set at run time; smaller values cost CPU (15 %: +10–20 %).
 */
const HEAP_GROWING_PERCENT = 60;

/**
 * The V8 settings of a serving process, each by its name and the setting. Allocation-site pretenuring
 * (decision 0060): under a steady read load V8 took the request objects that happened to be alive at young
 * collections for long-lived ones and began allocating them in the old generation, where, dead, they keep the
 * young objects they point to alive until the next full collection: ~2 MB promoted per young collection and a
 * full collection every 1.5 s, a fifth of a list's instructions spent collecting. Without it: 0.2 MB, one
 * every ~10 s. V8 reads both flags as it goes, so they can be set once the process runs.
 */
const SERVING_FLAGS: ReadonlyArray<{ name: string; setting: string }> = [
  { name: 'heap-growing-percent', setting: `--heap-growing-percent=${HEAP_GROWING_PERCENT}` },
  { name: 'allocation-site-pretenuring', setting: '--no-allocation-site-pretenuring' },
];

/**
 * Sets the server's V8 heap settings, each unless the operator chose it (`node --heap-growing-percent=…`,
 * `--allocation-site-pretenuring`, in either spelling, on the command line or in NODE_OPTIONS).
 */
export function tuneHeapForServing(
  execArgv: ReadonlyArray<string> = process.execArgv,
  nodeOptions = process.env.NODE_OPTIONS ?? '',
  set: (setting: string) => void = setFlagsFromString,
): void {
  const chosen = new Set([...execArgv, ...nodeOptions.split(/\s+/)].map(flagName));
  for (const { name, setting } of SERVING_FLAGS) if (!chosen.has(name)) set(setting);
}

/** `--no-heap_growing_percent=5` → `heap-growing-percent`: V8 takes `_` for `-` and `--no-` for false. */
function flagName(argument: string): string {
  return argument
    .replace(/^--(no-?)?/, '')
    .split('=')[0]!
    .replaceAll('_', '-');
}
