import { randomUUID } from 'node:crypto';
import * as assert from 'uvu/assert';
import { StreamingImportRecordReader } from '../../src/adapters/import/streaming-import-record-reader.ts';
import type { Persistence } from '../../src/adapters/persistence/persistence.ts';
import {
  type ImportItemsCommand,
  ImportItemsHandler,
  type ImportLimits,
  type ImportResult,
} from '../../src/application/items/import-items.ts';
import { ImportSlots } from '../../src/application/items/import-slots.ts';
import { ReadRules } from '../../src/application/items/read-rules.ts';
import { WriteRules } from '../../src/application/items/write-rules.ts';
import type { ImportFormat } from '../../src/application/ports/import-records.ts';
import type { NewField } from '../../src/application/ports/schema-catalog.ts';
import type { Accountability } from '../../src/domain/accountability.ts';
import { DomainError } from '../../src/domain/errors.ts';
import { Permission, type RawFilter } from '../../src/domain/permissions/permission.ts';
import type { CollectionSchema } from '../../src/domain/schema/collection-schema.ts';
import type { PersistenceTarget } from '../support/databases.ts';
import { FixedClock } from '../support/fakes/fixed-clock.ts';
import { listRequest } from '../support/list-request.ts';
import { skippableSuite } from '../support/skippable-suite.ts';
import { aRole } from './fixtures.ts';

const CRATES = 'crates';
const OPERATOR_ROLE = 'b0000000-0000-4000-8000-000000000001';
const OPERATOR: Accountability = {
  user: 'a0000000-0000-4000-8000-00000000000a',
  role: OPERATOR_ROLE,
  admin: false,
  session: null,
};
const ADMIN: Accountability = { user: null, role: null, admin: true, session: null };

const CRATE_FIELDS: NewField[] = [
  { field: 'id', type: 'uuid', isPrimaryKey: true },
  { field: 'label', type: 'string', maxLength: 16, isNullable: false },
  { field: 'count', type: 'integer' },
  { field: 'weight', type: 'float' },
  { field: 'price', type: 'decimal' },
  { field: 'fragile', type: 'boolean', isNullable: false, defaultValue: false },
  { field: 'packed_on', type: 'date' },
  { field: 'extra', type: 'json' },
  { field: 'owner', type: 'string', maxLength: 40 },
  { field: 'date_created', type: 'timestamp' },
];

const LIMITS: ImportLimits = {
  maxBytes: 64 * 1024 ** 2,
  maxRows: 200_000,
  chunkRows: 1000,
  maxRecordChars: 4096,
};

/**
 * The file whose last row but one is bad: the chunks before it (99) are inserted, then rolled back. 10,000
 * rows in chunks of 100 insert as many chunks as 100,000 in chunks of 1,000 did, for a tenth of the time;
 * TEST_IMPORT_ROWS=100000 runs the big file (in chunks of a hundredth of it).
 */
const BIG_FILE_ROWS = Number(process.env.TEST_IMPORT_ROWS ?? 10_000);
const BIG_FILE_CHUNK_ROWS = Math.max(1, Math.floor(BIG_FILE_ROWS / 100));

type State = {
  persistence: Persistence;
  /** An import handler on the target, with one import slot of its own. */
  handler(limits?: Partial<ImportLimits>): ImportItemsHandler;
  run(
    who: Accountability,
    format: ImportFormat,
    text: string,
    options?: Partial<Pick<ImportItemsCommand, 'mode'>> & { limits?: Partial<ImportLimits> },
  ): Promise<ImportResult>;
  rows(): Promise<Array<Record<string, unknown>>>;
  grant(grant: {
    fields?: string[];
    presets?: Record<string, unknown>;
    validation?: RawFilter;
  }): Promise<void>;
};

/** The text in pieces of `size` characters, as a socket would hand it over. */
async function* bytesOf(text: string, size = 7919): AsyncIterable<Uint8Array> {
  const bytes = Buffer.from(text, 'utf8');
  for (let start = 0; start < bytes.length; start += size) yield bytes.subarray(start, start + size);
}

async function refused(promise: Promise<unknown>): Promise<DomainError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

async function emptied(persistence: Persistence, collection: CollectionSchema): Promise<void> {
  await persistence.items.write(async (writer) => {
    const keys = (await writer.lockMatching(collection, null)).map((row) => row.id!);
    if (keys.length > 0) await writer.delete(collection, keys);
  });
}

const csvOf = (count: number, row: (index: number) => string) =>
  `label,count,weight\n${Array.from({ length: count }, (_, index) => row(index + 1)).join('\n')}\n`;

/**
 * POST /utils/import/:collection's handler over one backend: every row checked as POST /items checks an
 * item, all or nothing by default, per chunk in batch mode, within the import's limits.
 */
export function importItemsContract(target: PersistenceTarget) {
  const test = skippableSuite<State>(`Import of items (${target.name})`, target.skip);

  // A database target keeps the collection this suite made from one case to the next (the memory one
  // starts empty each time): emptying it costs a statement where dropping and creating it cost a migration.
  let made = false;
  test.before.each(async (state) => {
    const persistence = await target.fresh();
    await persistence.schema.refresh();
    const existing = persistence.schema.current().collections.get(CRATES);
    if (existing && made) await emptied(persistence, existing);
    else {
      if (existing) await persistence.schemaEditor.dropCollection(CRATES);
      await persistence.schemaEditor.createCollection(CRATES, CRATE_FIELDS);
      made = true;
    }
    await persistence.roles.save(aRole({ id: OPERATOR_ROLE, name: 'Operator' }));
    const clock = new FixedClock('2026-03-01T12:34:56.789Z');
    state.persistence = persistence;
    state.handler = (limits = {}) =>
      new ImportItemsHandler(
        persistence.schema,
        new ReadRules(persistence.permissions),
        new WriteRules(persistence.permissions),
        persistence.items,
        new StreamingImportRecordReader(),
        clock,
        new ImportSlots(1),
        { ...LIMITS, ...limits },
      );
    state.run = (who, format, text, { mode = 'all', limits = {} } = {}) =>
      state.handler(limits).execute(who, { collection: CRATES, format, bytes: bytesOf(text), mode });
    state.rows = async () => {
      const collection = persistence.schema.current().collections.get(CRATES)!;
      const select = collection.fields.map((field) => ({ field: field.name, visibleWhen: null }));
      const { json } = await persistence.items.list(
        listRequest(collection, { select, sort: [{ field: 'label', direction: 'asc' }] }),
      );
      return JSON.parse(json);
    };
    state.grant = async ({ fields = ['*'], presets, validation }) => {
      await persistence.permissions.save(
        new Permission({
          id: randomUUID(),
          role: OPERATOR_ROLE,
          collection: CRATES,
          action: 'create',
          permissions: null,
          validation: validation ?? null,
          presets: presets ?? null,
          fields,
        }),
      );
    };
  });
  test.after(() => target.dispose());

  test('a CSV file: each cell read as its field type says, empty cells null, a quoted empty text ""', async (state) => {
    const csv =
      'label,count,weight,price,fragile,packed_on,extra,owner\n' +
      'apples,12,4.5,10.50,true,2026-01-02,"{""a"":[1,2]}",""\n' +
      'pears,,,-0.5,0,,hello,\n';
    assert.equal(await state.run(ADMIN, 'csv', csv), { inserted: 2 });
    const [apples, pears] = await state.rows();
    assert.equal(
      { ...apples, id: undefined },
      {
        id: undefined,
        label: 'apples',
        count: 12,
        weight: 4.5,
        price: apples!.price,
        fragile: true,
        packed_on: '2026-01-02',
        extra: { a: [1, 2] },
        owner: '',
        date_created: (apples as { date_created: string }).date_created,
      },
    );
    assert.is(String(apples!.price), '10.5');
    assert.match(String((apples as { id: string }).id), /^[0-9a-f-]{36}$/);
    assert.equal(
      [
        pears!.count,
        pears!.weight,
        String(pears!.price),
        pears!.fragile,
        pears!.packed_on,
        pears!.extra,
        pears!.owner,
      ],
      [null, null, '-0.5', false, null, 'hello', null],
    );
  });

  test('a quoted empty cell is null where a field cannot hold the empty text', async (state) => {
    const csv = 'label,count,packed_on,weight,extra,owner\n"","","","","",""\n';
    assert.equal(await state.run(ADMIN, 'csv', csv), { inserted: 1 });
    const [row] = await state.rows();
    assert.equal(
      [row!.label, row!.count, row!.packed_on, row!.weight, row!.extra, row!.owner],
      ['', null, null, null, '', ''],
    );
  });

  test('a JSON array and NDJSON are read as POST /items bodies', async (state) => {
    const json = JSON.stringify([
      { label: 'a', count: 1, extra: { deep: [true] } },
      { label: 'b', weight: 2.5 },
    ]);
    assert.equal(await state.run(ADMIN, 'json', json), { inserted: 2 });
    const ndjson = '{"label":"c","count":3}\r\n\n{"label":"d","fragile":true}\n';
    assert.equal(await state.run(ADMIN, 'ndjson', ndjson), { inserted: 2 });
    const rows = await state.rows();
    assert.equal(
      rows.map((row) => [row.label, row.count, row.weight, row.fragile, row.extra]),
      [
        ['a', 1, null, false, { deep: [true] }],
        ['b', null, 2.5, false, null],
        ['c', 3, null, false, null],
        ['d', null, null, true, null],
      ],
    );
  });

  test('presets fill what a row leaves out; the server sets its own fields', async (state) => {
    await state.grant({ presets: { owner: '$CURRENT_USER', count: 7 } });
    assert.equal(await state.run(OPERATOR, 'csv', 'label,count\nx,\ny,2\n'), { inserted: 2 });
    const rows = await state.rows();
    assert.equal(
      rows.map((row) => [row.label, row.count, row.owner]),
      [
        ['x', null, OPERATOR.user],
        ['y', 2, OPERATOR.user],
      ],
    );
    assert.ok(rows.every((row) => typeof row.date_created === 'string'));
  });

  test('a field outside the create permission is 403 naming it and its row; nothing is written', async (state) => {
    await state.grant({ fields: ['label', 'count'] });
    const error = await refused(state.run(OPERATOR, 'csv', 'label,count,weight\na,1,\nb,2,3\n'));
    assert.is(error.code, 'FORBIDDEN');
    assert.is(error.extensions.field, 'weight');
    assert.is(error.extensions.row, 1);
    assert.equal(await state.rows(), []);
  });

  test('a caller without a create permission is refused before the file is read', async (state) => {
    const error = await refused(state.run(OPERATOR, 'csv', 'not read at all'));
    assert.is(error.code, 'FORBIDDEN');
  });

  test(`a bad row at ${(BIG_FILE_ROWS - 1).toLocaleString('en')} of ${BIG_FILE_ROWS.toLocaleString('en')} writes nothing and names its row and field`, async (state) => {
    const bad = BIG_FILE_ROWS - 1;
    const csv = csvOf(BIG_FILE_ROWS, (row) =>
      row === bad ? `crate ${row},many,1` : `crate ${row},${row},1.5`,
    );
    const error = await refused(state.run(ADMIN, 'csv', csv, { limits: { chunkRows: BIG_FILE_CHUNK_ROWS } }));
    assert.is(error.code, 'FAILED_VALIDATION');
    assert.is(error.extensions.row, bad);
    assert.is(error.extensions.field, 'count');
    assert.match(error.message, new RegExp(`^Row ${bad}: `));
    assert.equal(await state.rows(), []);
  });

  test('validation rules, required fields and unknown columns name their row', async (state) => {
    await state.grant({ validation: { count: { _lt: 10 } } });
    const tooMany = await refused(
      state.run(OPERATOR, 'ndjson', '{"label":"a","count":1}\n{"label":"b","count":11}\n'),
    );
    assert.equal([tooMany.code, tooMany.extensions.row], ['FAILED_VALIDATION', 2]);
    const missing = await refused(state.run(ADMIN, 'json', '[{"label":"a"},{"count":1}]'));
    assert.equal(
      [missing.code, missing.extensions.field, missing.extensions.row],
      ['FAILED_VALIDATION', 'label', 2],
    );
    const unknown = await refused(state.run(ADMIN, 'csv', 'label,colour\na,red\n'));
    assert.equal(
      [unknown.code, unknown.extensions.field, unknown.extensions.row],
      ['INVALID_PAYLOAD', 'colour', 1],
    );
    assert.equal(await state.rows(), []);
  });

  test('a CSV header naming a field the collection lacks is 400 naming it on row 1, rows or none', async (state) => {
    const files = ['colour\n', 'label,colour\n\n\r\n', 'colour,label\nred,a\n', '\ufeffcolour\r\n'];
    for (const csv of files) {
      const error = await refused(state.run(ADMIN, 'csv', csv));
      assert.equal(
        [error.code, error.extensions.field, error.extensions.row],
        ['INVALID_PAYLOAD', 'colour', 1],
        JSON.stringify(csv),
      );
      assert.match(error.message, /^Row 1: Unknown field "colour"/);
    }
    // An empty name (a header ending in a comma) is named too.
    const empty = await refused(state.run(ADMIN, 'csv', 'label,count,\na,1,\n'));
    assert.equal([empty.code, empty.extensions.field, empty.extensions.row], ['INVALID_PAYLOAD', '', 1]);
    // The same mistake in a JSON row is answered the same way.
    const json = await refused(state.run(ADMIN, 'json', '[{"colour":"red","label":"a"}]'));
    assert.equal([json.code, json.extensions.field, json.extensions.row], ['INVALID_PAYLOAD', 'colour', 1]);
    const batch = await state.run(ADMIN, 'csv', 'label,colour\n', { mode: 'batch' });
    assert.is(batch.inserted, 0);
    assert.equal(batch.chunks!.length, 1);
    const [chunk] = batch.chunks!;
    assert.ok(chunk && 'error' in chunk && chunk.error.extensions.field === 'colour', JSON.stringify(chunk));
    assert.equal(await state.rows(), []);
    // A header of known fields and no rows is an empty import, as an empty JSON array is.
    assert.equal(await state.run(ADMIN, 'csv', 'label,count\n'), { inserted: 0 });
    assert.equal(await state.run(ADMIN, 'json', '[]'), { inserted: 0 });
  });

  test('CSV records may end with CRLF, LF or CR, mixed in one file; quoted line breaks are kept', async (state) => {
    const csv = 'label,count,owner\r\nlf,1,x\ncrlf,2,""\r\ncr,3,y\r"q\r\nbreak",4,"z\nz"\nlast,5,w';
    assert.equal(await state.run(ADMIN, 'csv', csv), { inserted: 5 });
    assert.equal(
      (await state.rows()).map((row) => [row.label, row.count, row.owner]),
      [
        ['cr', 3, 'y'],
        ['crlf', 2, ''],
        ['last', 5, 'w'],
        ['lf', 1, 'x'],
        ['q\r\nbreak', 4, 'z\nz'],
      ],
    );
  });

  test('blank lines before a row holding a quoted empty cell are skipped like any others', async (state) => {
    const csv = 'label,owner\na,x\n\n\nb,""\r\n\r\n\r"c",""\n';
    assert.equal(await state.run(ADMIN, 'csv', csv), { inserted: 3 });
    assert.equal(
      (await state.rows()).map((row) => [row.label, row.owner]),
      [
        ['a', 'x'],
        ['b', ''],
        ['c', ''],
      ],
    );
  });

  test('after a header of one field, a blank line is a row whose field is null, as the export writes it', async (state) => {
    // Blank lines before the header are skipped, as in any file.
    const refusal = await refused(state.run(ADMIN, 'csv', '\r\n\nlabel\r\na\r\n\r\nb\r\n'));
    assert.equal(
      [refusal.code, refusal.extensions.field, refusal.extensions.row],
      ['FAILED_VALIDATION', 'label', 2],
    );
    assert.equal(await state.rows(), []);
    assert.equal(await state.run(ADMIN, 'csv', 'label,owner\n\na,\n\nb,""\n\n'), { inserted: 2 });
    assert.equal(
      (await state.rows()).map((row) => [row.label, row.owner]),
      [
        ['a', null],
        ['b', ''],
      ],
    );
    // A row of another width than the header's is refused on its row, blank lines not counted.
    const ragged = await refused(state.run(ADMIN, 'csv', 'label,owner\nc,x\n\n\nd\n'));
    assert.equal([ragged.code, ragged.extensions.row], ['INVALID_PAYLOAD', 2]);
  });

  test("a BOM split across the upload's pieces is dropped; an empty file or a BOM alone has no header", async (state) => {
    const withBom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('label,count\nb,1\n')]);
    const handler = state.handler();
    const byteAtATime = (bytes: Buffer) =>
      (async function* () {
        for (const byte of bytes) yield Uint8Array.of(byte);
      })();
    const run = (bytes: Buffer, format: ImportFormat = 'csv') =>
      handler.execute(ADMIN, { collection: CRATES, format, mode: 'all', bytes: byteAtATime(bytes) });
    assert.equal(await run(withBom), { inserted: 1 });
    assert.equal(
      (await state.rows()).map((row) => [row.label, row.count]),
      [['b', 1]],
    );
    for (const [format, bytes] of [
      ['csv', Buffer.alloc(0)],
      ['csv', Buffer.from([0xef, 0xbb, 0xbf])],
      ['csv', Buffer.from('\r\n\n')],
      ['json', Buffer.alloc(0)],
      ['json', Buffer.from('\ufeff{"label":"a"}')],
    ] as const) {
      const error = await refused(run(bytes, format));
      assert.is(error.code, 'INVALID_PAYLOAD', `${format}: ${JSON.stringify(bytes.toString())}`);
    }
    assert.equal(await run(Buffer.alloc(0), 'ndjson'), { inserted: 0 });
    assert.is((await state.rows()).length, 1);
  });

  test('a primary key that exists, before or in the same file, is 409 naming it; nothing is written', async (state) => {
    const id = '0190a5b2-0000-7000-8000-000000000001';
    const other = '0190a5b2-0000-7000-8000-000000000002';
    assert.equal(await state.run(ADMIN, 'csv', `id,label\n${id},first\n`), { inserted: 1 });
    const files: Array<[ImportFormat, string]> = [
      ['csv', `id,label\n${other},a\n${id},b\n`],
      [
        'json',
        JSON.stringify([
          { id: other, label: 'a' },
          { id: other, label: 'b' },
        ]),
      ],
      // The clash is in a later chunk than the row it clashes with.
      ['ndjson', `{"id":"${other}","label":"a"}\n{"label":"b"}\n{"id":"${other}","label":"c"}\n`],
    ];
    for (const [format, text] of files) {
      const error = await refused(state.run(ADMIN, format, text, { limits: { chunkRows: 2 } }));
      assert.equal([error.code, error.extensions.field], ['RECORD_NOT_UNIQUE', 'id'], format);
    }
    assert.equal(
      (await state.rows()).map((row) => [row.id, row.label]),
      [[id, 'first']],
    );
  });

  test('a json cell of a CSV is held to a JSON row\'s rules: a "__proto__" key is 400 naming the field', async (state) => {
    for (const cell of ['{"__proto__":{"x":1}}', '[{"a":{"\\u005f_proto__":1}}]']) {
      const csv = `label,extra\na,"${cell.replaceAll('"', '""')}"\n`;
      const error = await refused(state.run(ADMIN, 'csv', csv));
      assert.equal(
        [error.code, error.extensions.field, error.extensions.row],
        ['INVALID_PAYLOAD', 'extra', 1],
        cell,
      );
    }
    const json = await refused(state.run(ADMIN, 'json', '[{"label":"a","extra":{"__proto__":{"x":1}}}]'));
    assert.equal([json.code, json.extensions.row], ['INVALID_PAYLOAD', 1]);
    // A text that only mentions the name is no key.
    assert.equal(await state.run(ADMIN, 'csv', 'label,extra\na,"{""k"":""__proto__""}"\n'), { inserted: 1 });
    assert.equal(
      (await state.rows()).map((row) => row.extra),
      [{ k: '__proto__' }],
    );
  });

  test('batch mode commits each chunk alone and reports each one', async (state) => {
    const csv = csvOf(25, (row) => (row === 12 ? `c${row},x,1` : `c${row},${row},1`));
    const result = await state.run(ADMIN, 'csv', csv, { mode: 'batch', limits: { chunkRows: 10 } });
    assert.is(result.inserted, 15);
    const chunks = result.chunks!;
    assert.equal(chunks[0], { rows: [1, 10], inserted: 10 });
    assert.equal(chunks[1]!.rows, [11, 20]);
    assert.is(('error' in chunks[1]! && chunks[1].error.extensions.row) || 0, 12);
    assert.equal(chunks[2], { rows: [21, 25], inserted: 5 });
    assert.is((await state.rows()).length, 15);
  });

  test('a file over import.maxRows or import.maxBytes is refused with its reason, nothing written', async (state) => {
    const csv = csvOf(30, (row) => `c${row},${row},1`);
    const rows = await refused(state.run(ADMIN, 'csv', csv, { limits: { maxRows: 20, chunkRows: 5 } }));
    assert.equal(
      [rows.code, rows.extensions.reason, rows.extensions.row],
      ['INVALID_PAYLOAD', 'MAX_ROWS', 21],
    );
    const bytes = await refused(state.run(ADMIN, 'csv', csv, { limits: { maxBytes: 100, chunkRows: 5 } }));
    assert.equal([bytes.code, bytes.extensions.reason], ['INVALID_PAYLOAD', 'MAX_BYTES']);
    assert.equal(await state.rows(), []);
    const batch = await state.run(ADMIN, 'csv', csv, {
      mode: 'batch',
      limits: { maxRows: 12, chunkRows: 5 },
    });
    assert.is(batch.inserted, 10);
    const last = batch.chunks!.at(-1)!;
    assert.ok('error' in last && last.error.extensions.reason === 'MAX_ROWS');
  });

  test('malformed files are 400 naming the row they fail at', async (state) => {
    const cases: Array<[ImportFormat, string, number]> = [
      ['csv', 'label,count\na,1\nb,2,3\n', 2],
      ['csv', 'label\n"open\n', 1],
      ['json', '[{"label":"a"},{"label":"b"', 2],
      ['json', '[{"label":"a"}, 3]', 2],
      ['json', '{"label":"a"}', 1],
      ['ndjson', '{"label":"a"}\n{label:b}\n', 2],
      ['ndjson', `{"label":"${'x'.repeat(5000)}"}\n`, 1],
      ['json', '[{"label":"a","__proto__":{"x":1}}]', 1],
    ];
    for (const [format, text, row] of cases) {
      const error = await refused(state.run(ADMIN, format, text));
      assert.equal(
        [error.code, error.extensions.row],
        ['INVALID_PAYLOAD', row],
        `${format}: ${text.slice(0, 40)}`,
      );
    }
    const notUtf8 = await refused(
      state.handler().execute(ADMIN, {
        collection: CRATES,
        format: 'csv',
        mode: 'all',
        bytes: (async function* () {
          yield Buffer.from([0x6c, 0x61, 0x62, 0x65, 0x6c, 0x0a, 0xff, 0x0a]);
        })(),
      }),
    );
    assert.is(notUtf8.code, 'INVALID_PAYLOAD');
    assert.equal(await state.rows(), []);
  });

  test('imported rows are item creates in the change log, once the import commits', async (state) => {
    const feed = state.persistence.itemEvents;
    if (!feed) return;
    const before = await feed.latest();
    await state.run(ADMIN, 'csv', 'label\na\nb\n');
    const events = (await feed.since(before, 10)) ?? [];
    const mine = events.filter((event) => event.collection === CRATES);
    assert.equal(
      mine.map((event) => [event.action, event.after?.label]),
      [
        ['create', 'a'],
        ['create', 'b'],
      ],
    );
  });

  test('one import at a time per user: a second one meanwhile is 429', async (state) => {
    const handler = state.handler();
    let open!: () => void;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const slow = handler.execute(ADMIN, {
      collection: CRATES,
      format: 'csv',
      mode: 'all',
      bytes: (async function* () {
        yield Buffer.from('label\na\n');
        await gate;
      })(),
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    const second = await refused(
      handler.execute(ADMIN, {
        collection: CRATES,
        format: 'csv',
        mode: 'all',
        bytes: bytesOf('label\nb\n'),
      }),
    );
    assert.equal([second.code, second.extensions.retryAfter], ['TOO_MANY_REQUESTS', 1]);
    open();
    assert.equal(await slow, { inserted: 1 });
    assert.equal(
      await handler.execute(ADMIN, {
        collection: CRATES,
        format: 'csv',
        mode: 'all',
        bytes: bytesOf('label\nc\n'),
      }),
      { inserted: 1 },
    );
  });

  return test;
}
