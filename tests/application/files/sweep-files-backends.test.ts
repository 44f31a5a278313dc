import * as assert from 'uvu/assert';
import { SweepFilesHandler, type SweepFinding } from '../../../src/application/files/sweep-files.ts';
import type { FileStorage } from '../../../src/application/ports/file-storage.ts';
import { SYSTEM_ACCOUNTABILITY } from '../../../src/domain/accountability.ts';
import { FILES_COLLECTION } from '../../../src/domain/schema/collection-schema.ts';
import { backends } from '../../support/databases.ts';
import { FixedClock } from '../../support/fakes/fixed-clock.ts';
import { suitePerBackend } from '../../support/suite-per-backend.ts';

const HOUR = 60 * 60 * 1000;
const KEPT = 'f0000000-0000-4000-8000-0000000000a1';
const GONE = 'f0000000-0000-4000-8000-0000000000a2';
const BARE = 'f0000000-0000-4000-8000-0000000000a3';

async function* bytes(size: number): AsyncIterable<Uint8Array> {
  yield new Uint8Array(size);
}

async function keys(storage: FileStorage): Promise<string[]> {
  const found: string[] = [];
  for await (const object of storage.list('')) found.push(object.key);
  return found;
}

function described(finding: SweepFinding): string {
  if (finding.kind === 'orphan') return `${finding.area} ${finding.object.key}`;
  if (finding.kind === 'missing-bytes') return `missing ${finding.id}`;
  return `unreferenced ${finding.bytes.size}`;
}

type Context = { storage: FileStorage; handler: SweepFilesHandler };

/**
 * The orphans a crash leaves, found and removed on each backend with its own store (the memory map, large
 * objects in PGlite and in PostgreSQL): a row deleted without its bytes and variant, a row whose bytes are
 * gone, a stale upload. The file-by-file cases are in sweep-files.test.ts.
 */
for (const [target, test] of suitePerBackend<Context>(backends(), (name) => `files sweep on ${name}`)) {
  test.before(async (context) => {
    const persistence = await target.fresh();
    const storage = persistence.files ?? persistence.largeObjects;
    if (!storage) throw new Error('the backend has no file store');
    for (const key of await keys(storage)) await storage.delete(key);
    await persistence.schema.refresh();
    const files = persistence.schema.current().collections.get(FILES_COLLECTION)!;
    await persistence.items.write((writer) =>
      writer.insert(
        files,
        [KEPT, GONE, BARE].map((id) => ({ id, filename_disk: `files/${id}`, filename_download: 'a.bin' })),
      ),
    );
    await persistence.items.write((writer) => writer.delete(files, [GONE]));
    await storage.write(`files/${KEPT}`, bytes(10));
    await storage.write(`variants/${KEPT}/a1`, bytes(3));
    await storage.write(`files/${GONE}`, bytes(20));
    await storage.write(`variants/${GONE}/a1`, bytes(4));
    await storage.write('tmp/upload', bytes(7));
    const clock = new FixedClock(new Date(Date.now() + 2 * HOUR));
    context.storage = storage;
    context.handler = new SweepFilesHandler(persistence.schema, persistence.items, storage, clock);
  });
  test.after(() => target.dispose());

  test('reports the orphans and the row without bytes, then removes the orphans only', async (context) => {
    const { storage, handler } = context;
    const findings: SweepFinding[] = [];
    const report = await handler.execute(SYSTEM_ACCOUNTABILITY, {
      delete: false,
      olderThanMs: HOUR,
      onFinding: (finding) => findings.push(finding),
    });
    assert.equal(findings.filter((finding) => finding.kind !== 'unreferenced').map(described), [
      `files files/${GONE}`,
      `variants variants/${GONE}/a1`,
      'uploads tmp/upload',
      `missing ${BARE}`,
    ]);
    assert.equal(report.orphans, {
      files: { count: 1, bytes: 20 },
      variants: { count: 1, bytes: 4 },
      uploads: { count: 1, bytes: 7 },
    });
    assert.is(report.missingBytes, 1);

    const swept = await handler.execute(SYSTEM_ACCOUNTABILITY, { delete: true, olderThanMs: HOUR });
    assert.is(swept.deleted, true);
    assert.equal(await keys(storage), [`files/${KEPT}`, `variants/${KEPT}/a1`]);
  });

  test.run();
}
