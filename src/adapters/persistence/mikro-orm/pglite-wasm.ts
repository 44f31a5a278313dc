import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import type { PGliteOptions } from '@electric-sql/pglite';

type PgliteWasmModule = NonNullable<PGliteOptions['pgliteWasmModule']>;

/** Node's global WebAssembly, of which the project's libraries (ES2023, no DOM) declare no value. */
const { WebAssembly: wasm } = globalThis as unknown as {
  WebAssembly: { compile(bytes: Uint8Array): Promise<PgliteWasmModule> };
};

/**
 * PGlite's PostgreSQL is a 9 MB WebAssembly module. V8 compiles it with its baseline compiler (Liftoff),
 * then recompiles the hot functions with its optimizing one (TurboFan) in background threads: that second
 * tier holds ~50-90 MB more RSS and competes with start-up for the cores, for ~30 % less CPU per statement
 * inside PGlite. On the embedded database we keep the baseline code (decision 0020). The flag applies to
 * WebAssembly compiled from now on in this process; only PGlite is WebAssembly here.
 */
function baselineWebAssemblyOnly(): void {
  setFlagsFromString('--liftoff-only');
}

let compiled: Promise<PgliteWasmModule | undefined> | undefined;

/**
 * PGlite's WebAssembly, compiled once per process. `serve` starts this as soon as its configuration names
 * the embedded database, before the server's modules load: the file is read and compiled by V8's
 * background threads while the main thread parses the server (decision 0045), where PGlite would only
 * start it after. Undefined if the file is not where PGlite keeps it: PGlite then compiles its own, as it
 * does without this.
 */
export function compiledPgliteWasm(): Promise<PgliteWasmModule | undefined> {
  compiled ??= compile();
  return compiled;
}

async function compile(): Promise<PgliteWasmModule | undefined> {
  baselineWebAssemblyOnly();
  try {
    const entry = fileURLToPath(import.meta.resolve('@electric-sql/pglite'));
    return await wasm.compile(await readFile(join(dirname(entry), 'pglite.wasm')));
  } catch {
    return undefined;
  }
}
