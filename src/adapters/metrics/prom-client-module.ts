import { createRequire } from 'node:module';
import type * as PromClientExports from 'prom-client';

type PromClient = typeof PromClientExports;

const require = createRequire(import.meta.url);
let loaded: PromClient | undefined;

/**
 * prom-client, loaded the first time metrics are measured or served: a server without `metrics.port` (the
 * default) never loads it, ~35 ms of CPU less at every start (bench/results/2026-11-26-perf-notes.md).
 * Synchronous (prom-client is CommonJS), so the adapters keep their synchronous constructors.
 */
export function promClient(): PromClient {
  if (!loaded) loaded = require('prom-client') as PromClient;
  return loaded;
}
