// The second half of `make build` (decision 0042), after `tsc -p tsconfig.build.json` has written dist/src/:
// 1. dist/bundle/datagate.js — the built CLI bundled by esbuild, what `make run`, `npm start` and
//    bin/datagate.mjs run: Node loads a few files instead of ~1,600.
// 2. dist/pglite-cluster-<PGlite's version>/ — a fresh embedded cluster a first start copies instead of
//    running initdb.
// Run: node --import tsx scripts/bundle.ts
import { existsSync } from 'node:fs';
import { readFile, rename, rm } from 'node:fs/promises';
import { build, type Plugin } from 'esbuild';
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

/**
 * pg asks at load whether it runs in Cloudflare Workers, and on Node 20 (no `navigator`) finds out by making
 * a `Response`: that loads Node's fetch implementation (undici), ~30 ms of CPU at every start for an API
 * this server never uses. The bundle runs on Node only, so the question has one answer. If pg moves or
 * changes the line, the build fails here rather than keep the cost unnoticed.
 */
const PG_RUNTIME_PROBE = 'if (isCloudflareRuntime()) {';
let pgProbeRemoved = false;

const nodeOnlyPg: Plugin = {
  name: 'node-only-pg',
  setup(plugins) {
    plugins.onLoad({ filter: /[\\/]node_modules[\\/]pg[\\/]lib[\\/]stream\.js$/ }, async ({ path }) => {
      const source = await readFile(path, 'utf8');
      if (!source.includes(PG_RUNTIME_PROBE))
        throw new Error(`${path} no longer has \`${PG_RUNTIME_PROBE}\``);
      pgProbeRemoved = true;
      return { contents: source.replace(PG_RUNTIME_PROBE, 'if (false) {'), loader: 'js' };
    });
  },
};

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
  plugins: [nodeOnlyPg],
  // Bundled CommonJS packages call require(); an ES module has none of its own.
  banner: {
    js: "import { createRequire as __datagateRequire } from 'node:module'; const require = __datagateRequire(import.meta.url);",
  },
  logLevel: 'warning',
});
if (!pgProbeRemoved)
  throw new Error("pg/lib/stream.js was not bundled: revisit scripts/bundle.ts's nodeOnlyPg");

const template = pgliteClusterTemplate();
if (!existsSync(template)) {
  const building = `${template}.initdb`;
  await rm(building, { recursive: true, force: true });
  await initdbInChildProcess(building);
  await rename(building, template);
}
