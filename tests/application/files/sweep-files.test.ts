import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createInMemoryPersistence } from '../../../src/adapters/persistence/memory/in-memory-persistence.ts';
import type { Persistence } from '../../../src/adapters/persistence/persistence.ts';
import {
  SweepFilesHandler,
  type SweepFinding,
  type SweepProgress,
} from '../../../src/application/files/sweep-files.ts';
import type { FileStorage, UnreferencedBytes } from '../../../src/application/ports/file-storage.ts';
import { type Accountability, SYSTEM_ACCOUNTABILITY } from '../../../src/domain/accountability.ts';
import { FILES_COLLECTION } from '../../../src/domain/schema/collection-schema.ts';
import { expectDomainError } from '../../support/expect-domain-error.ts';
import { FixedClock } from '../../support/fakes/fixed-clock.ts';

const HOUR = 60 * 60 * 1000;
const KEPT = 'f0000000-0000-4000-8000-000000000001';
const GONE = 'f0000000-0000-4000-8000-000000000002';
const BARE = 'f0000000-0000-4000-8000-000000000003';
const METADATA_ONLY = 'f0000000-0000-4000-8000-000000000004';

type Context = {
  persistence: Persistence;
  storage: FileStorage;
  clock: FixedClock;
  handler: SweepFilesHandler;
};

async function* bytes(size: number): AsyncIterable<Uint8Array> {
  yield new Uint8Array(size);
}

async function keys(storage: FileStorage): Promise<string[]> {
  const found: string[] = [];
  for await (const object of storage.list('')) found.push(object.key);
  return found;
}

function described(finding: SweepFinding): string {
  if (finding.kind === 'orphan') return `${finding.area} ${finding.object.key} ${finding.deleted}`;
  if (finding.kind === 'missing-bytes') return `missing ${finding.id}`;
  return `unreferenced ${finding.bytes.name} ${finding.bytes.size}`;
}

/**
 * A store as a crash leaves it: `files/KEPT` and its variant with their row; `files/GONE` and its variant
 * whose row was deleted; `files/not-an-id`; the row BARE whose bytes are missing; a row with no bytes at
 * all (metadata only); an upload's `tmp/` key. Pages of two, so every listing crosses pages.
 */
async function fixture(): Promise<Context> {
  const persistence = createInMemoryPersistence();
  await persistence.schema.refresh();
  const files = persistence.schema.current().collections.get(FILES_COLLECTION)!;
  const storage = persistence.files!;
  await persistence.items.write((writer) =>
    writer.insert(files, [
      { id: KEPT, filename_disk: `files/${KEPT}`, filename_download: 'kept.png' },
      { id: BARE, filename_disk: `files/${BARE}`, filename_download: 'bare.png' },
      { id: METADATA_ONLY, filename_disk: null, filename_download: 'later.png' },
    ]),
  );
  await storage.write(`files/${KEPT}`, bytes(10));
  await storage.write(`variants/${KEPT}/a1`, bytes(3));
  await storage.write(`files/${GONE}`, bytes(20));
  await storage.write(`variants/${GONE}/a1`, bytes(4));
  await storage.write(`variants/${GONE}/b2`, bytes(5));
  await storage.write('files/not-an-id', bytes(1));
  await storage.write('tmp/upload', bytes(7));
  const clock = new FixedClock(new Date());
  const handler = new SweepFilesHandler(persistence.schema, persistence.items, storage, clock, 2);
  return { persistence, storage, clock, handler };
}

const sweep = suite<Context>('files sweep');
sweep.before.each(async (context) => {
  Object.assign(context, await fixture());
});

sweep(
  'reports keys without a row, variants of a deleted row and rows without bytes, deleting nothing',
  async ({ storage, handler }) => {
    const findings: SweepFinding[] = [];
    const before = await keys(storage);
    const summary = await handler.execute(SYSTEM_ACCOUNTABILITY, {
      delete: false,
      olderThanMs: HOUR,
      onFinding: (finding) => findings.push(finding),
    });
    assert.equal(findings.map(described), [
      `files files/${GONE} false`,
      'files files/not-an-id false',
      `variants variants/${GONE}/a1 false`,
      `variants variants/${GONE}/b2 false`,
      `missing ${BARE}`,
    ]);
    assert.equal(summary, {
      deleted: false,
      orphans: {
        files: { count: 2, bytes: 21 },
        variants: { count: 2, bytes: 9 },
        uploads: { count: 0, bytes: 0 },
      },
      missingBytes: 1,
      keysChecked: 7,
      rowsChecked: 3,
    });
    assert.equal(await keys(storage), before);
  },
);

sweep(
  'with delete, removes the orphans and nothing a row needs; the rows stay',
  async ({ storage, handler }) => {
    const summary = await handler.execute(SYSTEM_ACCOUNTABILITY, { delete: true, olderThanMs: HOUR });
    assert.is(summary.deleted, true);
    assert.is(summary.missingBytes, 1);
    assert.equal(await keys(storage), [`files/${KEPT}`, 'tmp/upload', `variants/${KEPT}/a1`]);
    const again = await handler.execute(SYSTEM_ACCOUNTABILITY, { delete: true, olderThanMs: HOUR });
    assert.equal(again.orphans.files, { count: 0, bytes: 0 });
    assert.is(again.missingBytes, 1);
  },
);

sweep(
  'an upload in progress is left alone; one older than --older-than is an orphan',
  async ({ storage, clock, handler }) => {
    clock.advance(HOUR - 60_000);
    const young = await handler.execute(SYSTEM_ACCOUNTABILITY, { delete: true, olderThanMs: HOUR });
    assert.equal(young.orphans.uploads, { count: 0, bytes: 0 });
    assert.ok((await keys(storage)).includes('tmp/upload'));
    clock.advance(2 * 60_000);
    const old = await handler.execute(SYSTEM_ACCOUNTABILITY, { delete: true, olderThanMs: HOUR });
    assert.equal(old.orphans.uploads, { count: 1, bytes: 7 });
    assert.not.ok((await keys(storage)).includes('tmp/upload'));
  },
);

sweep('progress counts the keys of each area and the rows against their total', async ({ handler }) => {
  const progress: SweepProgress[] = [];
  await handler.execute(SYSTEM_ACCOUNTABILITY, {
    delete: false,
    olderThanMs: HOUR,
    onProgress: (step) => progress.push(step),
  });
  assert.equal(progress, [
    { stage: 'files', done: 2 },
    { stage: 'files', done: 3 },
    { stage: 'variants', done: 2 },
    { stage: 'variants', done: 3 },
    { stage: 'uploads', done: 1 },
    { stage: 'rows', done: 2, total: 3 },
    { stage: 'rows', done: 3, total: 3 },
  ]);
});

sweep(
  'bytes a store holds under no key are reported, never deleted',
  async ({ persistence, storage, clock }) => {
    const withLeftovers: FileStorage = Object.assign(Object.create(storage) as FileStorage, {
      async *unreferenced() {
        yield { name: 'large object 1', size: 6 } satisfies UnreferencedBytes;
      },
    });
    const handler = new SweepFilesHandler(persistence.schema, persistence.items, withLeftovers, clock, 2);
    const findings: SweepFinding[] = [];
    const summary = await handler.execute(SYSTEM_ACCOUNTABILITY, {
      delete: true,
      olderThanMs: HOUR,
      onFinding: (finding) => findings.push(finding),
    });
    assert.ok(findings.map(described).includes('unreferenced large object 1 6'));
    assert.equal(summary.unreferenced, { count: 1, bytes: 6 });
  },
);

sweep('a store that cannot hold bytes under no key reports none', async ({ handler }) => {
  const summary = await handler.execute(SYSTEM_ACCOUNTABILITY, { delete: false, olderThanMs: HOUR });
  assert.not.ok('unreferenced' in summary);
});

sweep('is for admins only', async ({ handler }) => {
  const operator: Accountability = { user: 'u', role: 'r', admin: false, session: null };
  await expectDomainError(handler.execute(operator, { delete: true, olderThanMs: HOUR }), 'FORBIDDEN');
});

sweep.run();
