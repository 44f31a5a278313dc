#!/usr/bin/env node
// Runs the bundle `make build` leaves in dist/ (decision 0042) while it is newer than every source and the
// installed packages; otherwise the TypeScript sources through tsx, so an edit never runs stale code and a
// checkout needs no build step.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BUNDLE = join(ROOT, 'dist', 'bundle', 'datagate.js');

function modifiedMs(path) {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return Number.NaN;
  }
}

/** The newest of what the bundle is made from: src/ (every file), and the packages (npm's lock file). */
function newestSourceMs() {
  const src = join(ROOT, 'src');
  const files = readdirSync(src, { recursive: true }).map((file) => join(src, file));
  return Math.max(...[src, join(ROOT, 'node_modules', '.package-lock.json'), ...files].map(modifiedMs));
}

if (modifiedMs(BUNDLE) > newestSourceMs()) {
  await import(pathToFileURL(BUNDLE).href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/cli.ts');
}
