import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { sql } from 'kysely';
import * as assert from 'uvu/assert';
import type { MikroOrmPersistence } from '../../src/adapters/persistence/mikro-orm/open-mikro-orm-persistence.ts';
import { userTablesDatabase } from '../../src/adapters/persistence/postgres/postgres-collections.ts';
import { borrowed, databaseBackends } from '../support/databases.ts';
import { suitePerBackend } from '../support/suite-per-backend.ts';
import type { TestApp } from '../support/test-app.ts';
import { startTestApp } from '../support/test-app.ts';

/**
 * An export's memory does not grow with the file (docs/decisions/0034): 100,000 rows of about 1 KB, a
 * CSV file of some 100 MB, twice the bound, read by a client in this very process that drops each chunk.
 * Every few MB the heap is collected and what survives measured, so garbage not yet collected does not
 * count, only what the export holds. The bound is generous; holding the file, or half of it, would cross
 * it. TEST_EXPORT_MEMORY_ROWS=200000 makes the file four times the bound. On a PostgreSQL server only: the
 * in-memory store holds its rows in this heap itself, and PGlite's database lives in this process too.
 */

const ROWS = Number(process.env.TEST_EXPORT_MEMORY_ROWS ?? 100_000);
const BODY_CHARACTERS = 1000;
/** What the live heap may grow by during the export; the file is about ROWS KB. */
const HEAP_GROWTH_MAX_MB = 50;
/** Bytes received between two measures. */
const MEASURE_EVERY = 4 * 1024 ** 2;

/** A full collection, then the heap that survived it. */
function liveHeap(): number {
  collectGarbage();
  return process.memoryUsage().heapUsed;
}

setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

type Context = { app: TestApp; admin: string };

const server = databaseBackends().filter((backend) => backend.name === 'postgresql');

for (const [target, test] of suitePerBackend<Context, MikroOrmPersistence>(
  server,
  (backend) => `export memory on ${backend}`,
)) {
  test.before(async (context) => {
    const database = await target.fresh();
    const persistence = borrowed(database);
    await persistence.schema.refresh();
    if (persistence.schema.current().collections.has('wide_rows'))
      await persistence.schemaEditor.dropCollection('wide_rows');
    await persistence.schemaEditor.createCollection('wide_rows', [
      { field: 'id', type: 'integer', isPrimaryKey: true },
      { field: 'body', type: 'text' },
    ]);
    await sql`insert into wide_rows (id, body)
      select n, repeat('x', ${BODY_CHARACTERS}) from generate_series(1, ${ROWS}) as n`.execute(
      userTablesDatabase(database.orm),
    );
    context.app = await startTestApp({ persistence });
    context.admin = (await context.app.login(await context.app.seedAdmin())).access_token;
  });

  test.after(async ({ app }) => {
    await app.persistence.schemaEditor.dropCollection('wide_rows');
    await app.close();
    await target.dispose();
  });

  test(`${ROWS.toLocaleString('en')} rows of ~1 KB: the heap grows by less than ${HEAP_GROWTH_MAX_MB} MB`, async ({
    app,
    admin,
  }) => {
    const before = liveHeap();
    let peak = before;
    let bytes = 0;
    let measuredAt = 0;
    let records = 0;
    const response = await fetch(`${app.url}/items/wide_rows?export=csv`, {
      headers: { Authorization: `Bearer ${admin}` },
    });
    assert.is(response.status, 200);
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      bytes += chunk.length;
      for (let index = chunk.indexOf(10); index !== -1; index = chunk.indexOf(10, index + 1)) records++;
      if (bytes - measuredAt >= MEASURE_EVERY) {
        measuredAt = bytes;
        peak = Math.max(peak, liveHeap());
      }
    }
    assert.is(records, ROWS + 1, 'the header and every row');
    assert.ok(bytes > ROWS * BODY_CHARACTERS, `a file of ${bytes} bytes`);
    const growthMb = (peak - before) / 1024 ** 2;
    assert.ok(growthMb < HEAP_GROWTH_MAX_MB, `the heap grew by ${growthMb.toFixed(0)} MB`);
  });

  test.run();
}
