import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { PACKAGE_ROOT } from '../../src/package-root.ts';

/** What a first visit downloads, gzipped: every script and stylesheet of the build (issue 20: under 100 KB). */
const BUDGET_BYTES = 100 * 1024;

const BUILT = join(PACKAGE_ROOT, 'dist', 'studio');

test('the studio fits its budget: scripts and styles under 100 KB gzipped', async () => {
  assert.ok(existsSync(join(BUILT, 'index.html')), 'the studio is built (make build)');
  const assets = join(BUILT, 'assets');
  let total = 0;
  const sizes: string[] = [];
  for (const name of await readdir(assets)) {
    if (!/\.(js|css)$/.test(name)) continue;
    const gzipped = gzipSync(await readFile(join(assets, name)), { level: 9 }).length;
    total += gzipped;
    sizes.push(`${name}: ${gzipped} B`);
  }
  assert.ok(total > 0, 'the build has scripts');
  assert.ok(
    total <= BUDGET_BYTES,
    `${total} B gzipped is over the budget of ${BUDGET_BYTES} B (${sizes.join(', ')})`,
  );
});

test.run();
