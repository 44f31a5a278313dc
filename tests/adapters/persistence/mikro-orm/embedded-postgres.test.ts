import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { openEmbeddedPostgres } from '../../../../src/adapters/persistence/mikro-orm/embedded-postgres.ts';

type Context = { dataDir: string; templateRoot: string; clusterTemplate: string };

const firstStart = suite<Context>('embedded PostgreSQL: the first start of a data directory');
/**
 * One cluster made by initdb (no template to copy), with a table of its own, for the whole suite: the
 * cases that need a first start copy it, as a built server copies the build's, instead of each running
 * initdb (seconds of CPU in a child process).
 */
firstStart.before(async (context) => {
  context.templateRoot = await mkdtemp(join(tmpdir(), 'datagate-embedded-template-'));
  const template = await openEmbeddedPostgres(context.templateRoot, {
    clusterTemplate: join(context.templateRoot, 'no-template'),
  });
  try {
    await template.db.exec('create table made_in_the_template (id int)');
  } finally {
    await template.close();
  }
  context.clusterTemplate = join(context.templateRoot, 'pglite');
});
firstStart.after(async ({ templateRoot }) => {
  await rm(templateRoot, { recursive: true, force: true });
});
firstStart.before.each(async (context) => {
  context.dataDir = await mkdtemp(join(tmpdir(), 'datagate-embedded-'));
});
firstStart.after.each(async ({ dataDir }) => {
  await rm(dataDir, { recursive: true, force: true });
});

firstStart(
  'a cluster left half-made by an interrupted first start is replaced, not used',
  async ({ dataDir, clusterTemplate }) => {
    const building = join(dataDir, 'pglite.initdb');
    await mkdir(building, { recursive: true });
    await writeFile(join(building, 'PG_VERSION'), '17\n');
    const embedded = await openEmbeddedPostgres(dataDir, { clusterTemplate });
    try {
      const { rows } = await embedded.db.query<{ answer: number }>('select 41 + 1 as answer');
      assert.is(rows[0]?.answer, 42);
    } finally {
      await embedded.close();
    }
    assert.ok(existsSync(join(dataDir, 'pglite', 'PG_VERSION')));
    assert.is(existsSync(building), false);
  },
);

firstStart(
  'a pglite directory with files but no cluster is refused and left as it was',
  async ({ dataDir, clusterTemplate }) => {
    const pgData = join(dataDir, 'pglite');
    await mkdir(pgData, { recursive: true });
    await writeFile(join(pgData, 'notes.txt'), 'mine');
    await openEmbeddedPostgres(dataDir, { clusterTemplate }).then(
      (embedded) => embedded.close().then(() => assert.unreachable('opened a directory without a cluster')),
      (error: Error) => assert.match(error.message, 'holds files but no database'),
    );
    assert.is(await readFile(join(pgData, 'notes.txt'), 'utf8'), 'mine');
    assert.is(existsSync(join(dataDir, 'pglite.initdb')), false);
    assert.is(existsSync(join(dataDir, 'datagate.lock')), false, 'the lock is released');
  },
);

firstStart(
  'a first start copies the cluster template, and the copy is a database of its own',
  async ({ dataDir, templateRoot, clusterTemplate }) => {
    const copyDir = join(dataDir, 'copy');
    const copy = await openEmbeddedPostgres(copyDir, { clusterTemplate });
    try {
      const { rows } = await copy.db.query<{ table: string | null }>(
        "select to_regclass('made_in_the_template')::text as table",
      );
      assert.is(rows[0]?.table, 'made_in_the_template', 'the cluster is the template');
      await copy.db.exec('create table made_in_the_copy (id int)');
    } finally {
      await copy.close();
    }
    assert.is(existsSync(join(copyDir, 'pglite.initdb')), false);

    const again = await openEmbeddedPostgres(templateRoot);
    try {
      const { rows } = await again.db.query<{ table: string | null }>(
        "select to_regclass('made_in_the_copy')::text as table",
      );
      assert.is(rows[0]?.table, null, 'the template is untouched');
    } finally {
      await again.close();
    }
  },
);

firstStart.run();
