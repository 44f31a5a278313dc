import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, rm, symlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';

const ROOT = new URL('../..', import.meta.url).pathname;

/**
 * bin/datagate.mjs in a package of its own: a bundle and a source tree that each say which one ran, and the
 * real node_modules (tsx, and npm's lock file, whose time counts too).
 */
const entry = suite<{ root: string }>('bin/datagate.mjs: the bundle while it is newer than the sources');
entry.before.each(async (context) => {
  const root = await mkdtemp(join(tmpdir(), 'datagate-bin-'));
  await mkdir(join(root, 'bin'));
  await mkdir(join(root, 'dist', 'bundle'), { recursive: true });
  await mkdir(join(root, 'src', 'area'), { recursive: true });
  await copyFile(join(ROOT, 'bin', 'datagate.mjs'), join(root, 'bin', 'datagate.mjs'));
  await symlink(join(ROOT, 'node_modules'), join(root, 'node_modules'));
  await writeFile(join(root, 'package.json'), '{ "type": "module" }\n');
  await writeFile(join(root, 'dist', 'bundle', 'datagate.js'), "console.log('bundle');\n");
  await writeFile(join(root, 'src', 'cli.ts'), "const ran: string = 'sources';\nconsole.log(ran);\n");
  await writeFile(join(root, 'src', 'area', 'handler.ts'), 'export {};\n');
  context.root = root;
});
entry.after.each(async ({ root }) => {
  await rm(root, { recursive: true, force: true });
});

const run = async (root: string) =>
  (await promisify(execFile)(process.execPath, [join(root, 'bin', 'datagate.mjs')])).stdout.trim();

/** Sets the times of the bundle and of every source; the lock file is older than both (it was installed first). */
async function ages(root: string, bundle: Date, sources: Date): Promise<void> {
  await utimes(join(root, 'dist', 'bundle', 'datagate.js'), bundle, bundle);
  for (const path of ['src', 'src/cli.ts', 'src/area', 'src/area/handler.ts'])
    await utimes(join(root, path), sources, sources);
}

const now = Date.now();
const later = new Date(now + 60_000);
const earlier = new Date(now - 60_000);

entry('a bundle newer than every source runs', async ({ root }) => {
  await ages(root, later, earlier);
  assert.is(await run(root), 'bundle');
});

entry('one source edited after the build: the sources run', async ({ root }) => {
  await ages(root, later, earlier);
  await utimes(join(root, 'src', 'area', 'handler.ts'), new Date(now + 120_000), new Date(now + 120_000));
  assert.is(await run(root), 'sources');
});

entry('no bundle: the sources run', async ({ root }) => {
  await rm(join(root, 'dist'), { recursive: true });
  assert.is(await run(root), 'sources');
});

entry.run();
