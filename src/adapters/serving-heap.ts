import { setFlagsFromString } from 'node:v8';

/**
 * How far V8 lets the old generation grow past what survived its last full collection before collecting again,
 * in percent. V8's own factor (up to 4× on a server-sized heap) let a read load that keeps ~35 MB alive fill
 * ~120 MB of old space with dead request objects first: 214–253 MB peak RSS. At 60 % the peak is 159–165 MB for
 * the same CPU per request within the noise (bench/results/2026-11-26-perf-notes.md; decision 0029). V8 reads
 * the flag at every collection, so it can be set at run time; smaller values cost CPU (15 %: +10–20 %).
 */
const HEAP_GROWING_PERCENT = 60;

const FLAG = '--heap-growing-percent';

/** Sets the server's heap growth, unless the operator chose one (`node --heap-growing-percent`, NODE_OPTIONS). */
export function boundHeapGrowth(
  execArgv: ReadonlyArray<string> = process.execArgv,
  nodeOptions = process.env.NODE_OPTIONS ?? '',
): void {
  const chosen = [...execArgv, ...nodeOptions.split(/\s+/)].some(
    (argument) =>
      argument === FLAG || argument.startsWith(`${FLAG}=`) || argument.startsWith('--heap_growing_percent'),
  );
  if (!chosen) setFlagsFromString(`${FLAG}=${HEAP_GROWING_PERCENT}`);
}
