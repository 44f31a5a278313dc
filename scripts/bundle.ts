// The second half of `make build` (decision 0042), after `tsc -p tsconfig.build.json` has written dist/src/:
// 1. dist/bundle/datagate.js — the built CLI bundled by esbuild, what `make run`, `npm start` and
//    bin/datagate.mjs run: Node loads a few files instead of ~1,600.
// 2. dist/pglite-cluster-<PGlite's version>/ — a fresh embedded cluster a first start copies instead of
//    running initdb.
// Run: node --import tsx scripts/bundle.ts
import { existsSync } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { build } from 'esbuild';
import { pgliteClusterTemplate } from '../src/adapters/persistence/mikro-orm/pglite-cluster-template.ts';
import { initdbInChildProcess } from '../src/adapters/persistence/mikro-orm/pglite-initdb.ts';

const ROOT = new URL('..', import.meta.url).pathname;

/**
 * Loaded from node_modules at run time, not bundled: native addons (argon2, sharp with its libvips, pg's
 * optional pg-native), packages that read their own files (PGlite's WebAssembly and file-system bundle,
 * swagger-ui-dist's assets), and pino, whose transports start worker threads from its files.
 */
const EXTERNAL = [
  'argon2',
  'sharp',
  'pg-native',
  '@electric-sql/pglite',
  'swagger-ui-dist',
  'pino',
  'thread-stream',
];

await build({
  absWorkingDir: ROOT,
  entryPoints: { datagate: 'dist/src/cli.js' },
  outdir: 'dist/bundle',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  // Code behind a dynamic import() stays out of the start (a command's modules, MikroORM's file helpers,
  // which import Node 22's fs.globSync and so must not load on Node 20).
  splitting: true,
  // Less text to read and parse at every start; identifiers are not minified.
  minifyWhitespace: true,
  minifySyntax: true,
  // Every class and function keeps its `.name`. Without it esbuild names a class that refers to itself
  // `_Migrator` (~200 such classes): MikroORM, which finds its extensions by class name, then took our
  // Migrator for missing and imported a second copy of @mikro-orm/migrations, core, sql and kysely
  // (~430 files) from node_modules at every start, ~0.3 s of CPU; and errors were logged as `_ValidationError`.
  keepNames: true,
  sourcemap: 'linked',
  external: EXTERNAL,
  // Bundled CommonJS packages call require(); an ES module has none of its own.
  banner: {
    js: "import { createRequire as __datagateRequire } from 'node:module'; const require = __datagateRequire(import.meta.url);",
  },
  logLevel: 'warning',
});

const template = pgliteClusterTemplate();
if (!existsSync(template)) {
  const building = `${template}.initdb`;
  await rm(building, { recursive: true, force: true });
  await initdbInChildProcess(building);
  await rename(building, template);
}
