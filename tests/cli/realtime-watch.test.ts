import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { datagate } from '../support/datagate-process.ts';

const cli = suite<{ dir: string; env: Record<string, string> }>(
  'datagate realtime watch, unwatch and status on the embedded database',
);

cli.before(async (context) => {
  context.dir = mkdtempSync(join(tmpdir(), 'datagate-realtime-'));
  context.env = { DATA_DIR: context.dir };
  const sample = await datagate(['sample', 'cargos', '--rows', '10'], context.env);
  assert.is(sample.code, 0, sample.stderr);
});
cli.after(({ dir }) => rmSync(dir, { recursive: true, force: true }));

cli('a collection is watched, listed, and unwatched', async ({ env }) => {
  const none = await datagate(['realtime', 'status'], env);
  assert.is(none.code, 0, none.stderr);
  assert.is(none.stdout, 'No collection is watched: only writes through datagate are realtime events.\n');
  const watch = await datagate(['realtime', 'watch', 'cargos'], env);
  assert.is(watch.code, 0, watch.stderr);
  assert.is(watch.stdout, 'Watching cargos: its writes made by hand in SQL are realtime events too.\n');
  const status = await datagate(['realtime', 'status', '--json'], env);
  assert.equal(JSON.parse(status.stdout), [{ collection: 'cargos', current: true }]);
  const unwatch = await datagate(['realtime', 'unwatch', 'cargos'], env);
  assert.is(
    unwatch.stdout,
    'No longer watching cargos: only its writes through datagate are realtime events.\n',
  );
  const again = await datagate(['realtime', 'unwatch', 'cargos'], env);
  assert.is(again.code, 0, again.stderr);
  assert.is(again.stdout, 'cargos was not watched: nothing to do.\n');
});

cli('watching what cannot be watched fails with one line saying why', async ({ env }) => {
  const missing = await datagate(['realtime', 'watch', 'nowhere'], env);
  assert.is(missing.code, 1);
  assert.match(missing.stderr, /Collection "nowhere" does not exist/);
  const off = await datagate(['realtime', 'watch', 'cargos'], { ...env, REALTIME_ENABLED: 'false' });
  assert.is(off.code, 1);
  assert.match(off.stderr, /Watching needs a database .* with realtime enabled/);
});

cli.run();
