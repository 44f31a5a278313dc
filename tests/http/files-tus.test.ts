import { randomBytes } from 'node:crypto';
import pg from 'pg';
import * as tus from 'tus-js-client';
import * as assert from 'uvu/assert';
import { UploadFilesHandler } from '../../src/application/files/upload-files.ts';
import type { FileStorage } from '../../src/application/ports/file-storage.ts';
import type { Metrics } from '../../src/application/ports/metrics.ts';
import { TYPES } from '../../src/container.ts';
import { serviceUnavailable } from '../../src/domain/errors.ts';
import { backends, borrowed } from '../support/databases.ts';
import { RecordingMetrics } from '../support/fakes/recording-metrics.ts';
import { administer, testDatabaseUrl } from '../support/postgres-server.ts';
import { suitePerBackend } from '../support/suite-per-backend.ts';
import { startTcpProxy } from '../support/tcp-proxy.ts';
import { type SeededUser, startTestApp, type TestApp, withTestApp } from '../support/test-app.ts';
import { WatchedStorage } from '../support/watched-file-storage.ts';

type Context = {
  app: TestApp;
  /** Another instance on the same database and file store. */
  otherInstance: TestApp;
  /** One more, whose requests wait for an upload's lock for `IMPATIENT_LOCK_TIMEOUT` only. */
  impatient: TestApp;
  /** One more, whose users may have `LIMITED_UNFINISHED` unfinished uploads. */
  limited: TestApp;
  storage: WatchedStorage;
  admin: string;
  uploader: string;
  uploaderUser: SeededUser;
  otherUploader: string;
  reader: string;
  uploadersRole: string;
};

const MAX_UPLOAD = 4 * 1024 * 1024;
const CHUNK = 256 * 1024;

/**
 * Far shorter than the 3 s @tus/server gives a holder on the same instance to stop once asked: a request
 * that waits for the holder gives up long before the holder lets go.
 */
const IMPATIENT_LOCK_TIMEOUT = '100ms';

/** `storage.tus.maxUnfinished` of the `limited` instance. */
const LIMITED_UNFINISHED = 2;

/**
 * On PostgreSQL the instances lock uploads with advisory locks (`database.url` set, to `locksDatabase` or
 * the test database; the login throttle kept in memory, so that it makes no table of its own there).
 */
function instanceEnv(backend: string, locksDatabase?: string): Record<string, string> {
  // The suite leaves many uploads of one user unfinished (one per hostile request).
  const env = {
    STORAGE_TUS_ENABLED: 'true',
    STORAGE_MAX_UPLOAD_SIZE: String(MAX_UPLOAD),
    STORAGE_TUS_MAX_UNFINISHED: '1000',
  };
  if (backend !== 'postgresql') return env;
  return { ...env, DATABASE_URL: testDatabaseUrl(locksDatabase), LOGIN_THROTTLE_STORE: 'memory' };
}

/** Waits, without a deadline of its own (the run's timeout is the bound), until `done` holds. */
async function until(done: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await done())) await new Promise((resolve) => setTimeout(resolve, 10));
}

async function storedKeys(storage: FileStorage, prefix = ''): Promise<string[]> {
  const keys: string[] = [];
  for await (const object of storage.list(prefix)) keys.push(object.key);
  return keys;
}

type Finished = { url: string; file: { id: string; filesize: number; title: string } };

/** Runs a tus-js-client upload to its end (no retries: a failure rejects). */
function tusUpload(
  endpoint: string,
  token: string,
  bytes: Buffer,
  options: Partial<tus.UploadOptions> = {},
): Promise<Finished> {
  return new Promise((resolve, reject) => {
    const upload = new tus.Upload(bytes, {
      endpoint: `${endpoint}/files/tus`,
      headers: { Authorization: `Bearer ${token}` },
      metadata: { filename: 'cargo.bin', filetype: 'application/octet-stream', title: 'resumed' },
      retryDelays: null,
      ...options,
      onSuccess: ({ lastResponse }) =>
        resolve({ url: upload.url!, file: JSON.parse(lastResponse.getBody()) as Finished['file'] }),
      onError: reject,
    });
    upload.start();
  });
}

/** A creation request as a TUS client sends it; `metadata` values are base64-encoded here. */
function create(app: TestApp, token: string, length: number, metadata: Record<string, string>) {
  const encoded = Object.entries(metadata)
    .map(([key, value]) => `${key} ${Buffer.from(value).toString('base64')}`)
    .join(',');
  return fetch(`${app.url}/files/tus`, {
    method: 'POST',
    headers: {
      Authorization: `Bearer ${token}`,
      'Tus-Resumable': '1.0.0',
      'Upload-Length': String(length),
      'Upload-Metadata': encoded,
    },
  });
}

function patch(url: string, token: string, offset: number, bytes: Uint8Array) {
  return fetch(url, {
    method: 'PATCH',
    headers: {
      Authorization: `Bearer ${token}`,
      'Tus-Resumable': '1.0.0',
      'Upload-Offset': String(offset),
      'Content-Type': 'application/offset+octet-stream',
    },
    body: bytes,
  });
}

function head(url: string, token: string) {
  return fetch(url, {
    method: 'HEAD',
    headers: { Authorization: `Bearer ${token}`, 'Tus-Resumable': '1.0.0' },
  });
}

type HeldPatch = { readonly answer: Promise<Response>; end(): void };

/**
 * A PATCH that sends `bytes` and keeps its body open, so that it holds the upload's lock until `end()`;
 * resolves once the bytes are in the store (the lock is taken before any byte is written).
 */
async function heldPatch(
  storage: WatchedStorage,
  url: string,
  token: string,
  offset: number,
  bytes: Uint8Array,
): Promise<HeldPatch> {
  const before = storage.received;
  let end = () => {};
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(bytes);
      end = () => controller.close();
    },
  });
  const answer = fetch(url, {
    method: 'PATCH',
    headers: {
      Authorization: `Bearer ${token}`,
      'Tus-Resumable': '1.0.0',
      'Upload-Offset': String(offset),
      'Content-Type': 'application/offset+octet-stream',
    },
    body,
    duplex: 'half',
  });
  await until(() => storage.received >= before + bytes.length);
  return { answer, end: () => end() };
}

type ErrorAnswer = { errors: [{ extensions: { code: string } }] };

for (const [target, test] of suitePerBackend<Context>(
  backends(),
  (backend) => `resumable uploads at /files/tus on ${backend}`,
)) {
  test.before(async (context) => {
    const persistence = borrowed(await target.fresh());
    context.storage = new WatchedStorage();
    const instance = () =>
      startTestApp({
        persistence,
        env: instanceEnv(target.name),
        rebind: (container) =>
          container.rebind<FileStorage>(TYPES.FileStorage).toConstantValue(context.storage),
      });
    context.app = await instance();
    context.otherInstance = await instance();
    context.impatient = await startTestApp({
      persistence,
      env: { ...instanceEnv(target.name), STORAGE_TUS_LOCK_TIMEOUT: IMPATIENT_LOCK_TIMEOUT },
      rebind: (container) =>
        container.rebind<FileStorage>(TYPES.FileStorage).toConstantValue(context.storage),
    });
    context.limited = await startTestApp({
      persistence,
      env: { ...instanceEnv(target.name), STORAGE_TUS_MAX_UNFINISHED: String(LIMITED_UNFINISHED) },
      rebind: (container) =>
        container.rebind<FileStorage>(TYPES.FileStorage).toConstantValue(context.storage),
    });
    const { app } = context;
    context.admin = (await app.login(await app.seedAdmin())).access_token;
    const grant = async (body: Record<string, unknown>) => {
      const created = await app.request('POST', '/permissions', { token: context.admin, body });
      assert.is(created.status, 200, created.text);
    };
    const uploaders = await app.createRole({ name: 'Uploaders' });
    context.uploadersRole = uploaders.id;
    await grant({
      role: uploaders.id,
      collection: 'datagate_files',
      action: 'create',
      fields: ['title', 'filename_download'],
      validation: { title: { _nnull: true } },
    });
    await grant({ role: uploaders.id, collection: 'datagate_files', action: 'read', fields: ['*'] });
    context.uploaderUser = await app.createUser({ role: uploaders.id });
    context.uploader = (await app.login(context.uploaderUser)).access_token;
    context.otherUploader = (await app.login(await app.createUser({ role: uploaders.id }))).access_token;
    const readers = await app.createRole({ name: 'Readers' });
    await grant({ role: readers.id, collection: 'datagate_files', action: 'read', fields: ['*'] });
    context.reader = (await app.login(await app.createUser({ role: readers.id }))).access_token;
  });
  test.after(async ({ app, otherInstance, impatient, limited }) => {
    await limited.close();
    await impatient.close();
    await otherInstance.close();
    await app.close();
    await target.dispose();
  });

  test('a whole upload commits the file as POST /files does, and leaves no part behind', async (context) => {
    const { app, uploader, storage } = context;
    const bytes = randomBytes(3 * CHUNK + 1000);
    const { file } = await tusUpload(app.url, uploader, bytes, { chunkSize: CHUNK });
    assert.is(file.filesize, bytes.length);
    assert.is(file.title, 'resumed');
    const row = await app.request('GET', `/files/${file.id}`, { token: uploader });
    assert.is(row.status, 200, row.text);
    const asset = await fetch(`${app.url}/assets/${file.id}`, {
      headers: { Authorization: `Bearer ${uploader}` },
    });
    assert.is(asset.status, 200);
    assert.ok(Buffer.from(await asset.arrayBuffer()).equals(bytes));
    assert.equal(await storedKeys(storage, 'tus/'), []);
    assert.equal(await storedKeys(storage, 'tmp/'), []);
  });

  test('an upload cut mid-PATCH resumes from the offset the server kept', async (context) => {
    const { app, uploader, storage } = context;
    const proxy = await startTcpProxy({ host: '127.0.0.1', port: Number(new URL(app.url).port) });
    try {
      const through = `http://127.0.0.1:${proxy.port}`;
      const bytes = randomBytes(12 * CHUNK);
      let cut = false;
      const failed = await tusUpload(through, uploader, bytes, {
        chunkSize: 4 * CHUNK,
        onProgress: (sent) => {
          // Mid second PATCH: the first is acknowledged, the second is on the wire.
          if (!cut && sent > 5 * CHUNK) {
            cut = true;
            void proxy.down();
          }
        },
      }).then(
        () => undefined,
        (error: unknown) => error,
      );
      assert.ok(failed, 'the cut upload failed');
      await until(() => storage.begun === storage.settled);
      await proxy.up();
      const uploads = await storedKeys(storage, 'tus/');
      const id = uploads[0]!.split('/')[1]!;
      const uploadUrl = `${through}/files/tus/${id}`;
      const offset = Number((await head(uploadUrl, uploader)).headers.get('upload-offset'));
      assert.ok(offset >= 4 * CHUNK && offset < bytes.length, `offset ${offset}`);
      const { file } = await tusUpload(through, uploader, bytes, { chunkSize: 4 * CHUNK, uploadUrl });
      const asset = await fetch(`${app.url}/assets/${file.id}`, {
        headers: { Authorization: `Bearer ${uploader}` },
      });
      assert.ok(Buffer.from(await asset.arrayBuffer()).equals(bytes));
      assert.equal(await storedKeys(storage, 'tus/'), []);
    } finally {
      await proxy.close();
    }
  });

  test('an upload begun on one instance is continued and finished on another', async (context) => {
    const { app, otherInstance, uploader } = context;
    const created = await create(app, uploader, 10, { filename: 'two.txt', title: 'two instances' });
    const path = new URL(created.headers.get('location')!, app.url).pathname;
    assert.is((await patch(`${app.url}${path}`, uploader, 0, Buffer.from('01234'))).status, 204);
    const there = await head(`${otherInstance.url}${path}`, uploader);
    assert.is(there.headers.get('upload-offset'), '5');
    const finished = await patch(`${otherInstance.url}${path}`, uploader, 5, Buffer.from('56789'));
    assert.is(finished.status, 200);
    const { id } = (await finished.json()) as { id: string };
    const asset = await fetch(`${app.url}/assets/${id}`, {
      headers: { Authorization: `Bearer ${uploader}` },
    });
    assert.is(await asset.text(), '0123456789');
  });

  test('a creation without the create permission is refused before any byte', async (context) => {
    const { app, reader, storage } = context;
    const writes = storage.begun;
    const answer = await create(app, reader, 1000, { filename: 'a.bin', title: 'no' });
    assert.is(answer.status, 403);
    assert.is(
      ((await answer.json()) as { errors: [{ extensions: { code: string } }] }).errors[0].extensions.code,
      'FORBIDDEN',
    );
    const invalid = await create(app, context.uploader, 1000, { filename: 'a.bin' });
    assert.is(invalid.status, 400, 'the validation rule (title not null) runs at creation');
    const unknown = await create(app, context.uploader, 1000, {
      filename: 'a.bin',
      title: 't',
      'datagate:owner': 'x',
    });
    assert.is(unknown.status, 400);
    assert.is(storage.begun, writes);
  });

  test('an Upload-Length over storage.maxUploadSize is 413 at creation', async (context) => {
    const { app, uploader, storage } = context;
    const writes = storage.begun;
    const answer = await create(app, uploader, MAX_UPLOAD + 1, { filename: 'big.bin', title: 'big' });
    assert.is(answer.status, 413);
    const body = (await answer.json()) as { errors: [{ extensions: { code: string } }] };
    assert.is(body.errors[0].extensions.code, 'CONTENT_TOO_LARGE');
    assert.is(storage.begun, writes);
  });

  test('only the user who created an upload may see or continue it', async (context) => {
    const { app, uploader, otherUploader, admin } = context;
    const created = await create(app, uploader, 10, { filename: 'mine.txt', title: 'mine' });
    assert.is(created.status, 201, await created.clone().text());
    const url = new URL(created.headers.get('location')!, app.url).href;
    for (const token of [otherUploader, admin]) {
      assert.is((await head(url, token)).status, 404);
      assert.is((await patch(url, token, 0, Buffer.from('0123456789'))).status, 404);
    }
    const missing = `${app.url}/files/tus/${'0'.repeat(32)}`;
    assert.is((await head(missing, uploader)).status, 404);
    const mine = await head(url, uploader);
    assert.is(mine.status, 200);
    assert.is(mine.headers.get('upload-offset'), '0');
    const finished = await patch(url, uploader, 0, Buffer.from('0123456789'));
    assert.is(finished.status, 200);
    assert.is(((await finished.json()) as { filesize: number }).filesize, 10);
  });

  test('X-HTTP-Method-Override: a POST at an upload is the PATCH or DELETE it names, judged as that request', async (context) => {
    const { app, uploader, otherUploader } = context;
    const bytes = randomBytes(2 * CHUNK + 10);
    const { file } = await tusUpload(app.url, uploader, bytes, {
      chunkSize: CHUNK,
      overridePatchMethod: true,
    });
    assert.is(file.filesize, bytes.length, "tus-js-client's overridePatchMethod uploads");

    const created = await create(app, uploader, 10, { filename: 'tunnel.txt', title: 'tunnel' });
    const url = new URL(created.headers.get('location')!, app.url).href;
    const tunnel = (token: string | undefined, override: string | undefined, body?: string) =>
      fetch(url, {
        method: 'POST',
        headers: {
          ...(token ? { Authorization: `Bearer ${token}` } : {}),
          'Tus-Resumable': '1.0.0',
          ...(override ? { 'X-HTTP-Method-Override': override } : {}),
          ...(body ? { 'Upload-Offset': '0', 'Content-Type': 'application/offset+octet-stream' } : {}),
        },
        ...(body ? { body } : {}),
      });
    // The checks of a PATCH and a DELETE, not of a POST: the owner's, the token's.
    for (const override of ['PATCH', 'DELETE']) {
      assert.is(
        (await tunnel(otherUploader, override, override === 'PATCH' ? '01234' : undefined)).status,
        404,
      );
      assert.is((await tunnel(undefined, override)).status, 401);
    }
    for (const override of [undefined, 'GET', 'HEAD', 'POST', 'patch']) {
      const refused = await tunnel(uploader, override);
      assert.is(refused.status, 405, `${override}: ${await refused.text()}`);
      assert.is(refused.headers.get('allow'), 'HEAD, PATCH, DELETE, OPTIONS');
    }
    assert.is((await head(url, uploader)).headers.get('upload-offset'), '0', 'none of them wrote');
    assert.is((await tunnel(uploader, 'PATCH', '01234')).status, 204);
    assert.is((await head(url, uploader)).headers.get('upload-offset'), '5');
    assert.is((await tunnel(uploader, 'DELETE')).status, 204);
    assert.is((await head(url, uploader)).status, 404, 'terminated');
  });

  test('a request that waits past storage.tus.lockTimeout answers 423 LOCKED and writes nothing', async (context) => {
    const { app, impatient, uploader, storage } = context;
    // [where, the instance holding the upload, the instance of the request that waits for it]
    const scenarios: Array<[string, TestApp, TestApp]> = [['on one instance', impatient, impatient]];
    // Elsewhere the instances of this suite have a lock each, where a real deployment would have one process.
    if (target.name === 'postgresql') scenarios.push(['across instances', app, impatient]);
    for (const [where, holder, waiter] of scenarios) {
      const created = await create(holder, uploader, 10, { filename: 'held.txt', title: 'held' });
      const path = new URL(created.headers.get('location')!, holder.url).pathname;
      const held = await heldPatch(storage, `${holder.url}${path}`, uploader, 0, Buffer.from('01234'));
      const writes = storage.begun;
      const refused = await patch(`${waiter.url}${path}`, uploader, 0, Buffer.from('XXXXX'));
      assert.is(refused.status, 423, where);
      assert.is(((await refused.json()) as ErrorAnswer).errors[0].extensions.code, 'LOCKED', where);
      assert.is(storage.begun, writes, `${where}: the refused PATCH wrote nothing`);
      held.end();
      const holderAnswer = await held.answer;
      assert.is(holderAnswer.status, 204, where);
      assert.is(holderAnswer.headers.get('upload-offset'), '5', where);
      const finished = await patch(`${waiter.url}${path}`, uploader, 5, Buffer.from('56789'));
      assert.is(finished.status, 200, where);
      const { id } = (await finished.json()) as { id: string };
      const asset = await fetch(`${app.url}/assets/${id}`, {
        headers: { Authorization: `Bearer ${uploader}` },
      });
      assert.is(await asset.text(), '0123456789', where);
    }
  });

  test('a creation that brings every byte commits the file once and answers 201 with it', async (context) => {
    const { app, uploader, storage } = context;
    for (const [title, bytes] of [
      ['with its bytes', Buffer.from('whole file')],
      ['empty', Buffer.alloc(0)],
    ] as const) {
      const { file } = await tusUpload(app.url, uploader, bytes, {
        uploadDataDuringCreation: true,
        metadata: { filename: 'whole.txt', title },
      });
      assert.is(file.filesize, bytes.length, title);
      const filter = encodeURIComponent(JSON.stringify({ title: { _eq: title } }));
      const rows = await app.request('GET', `/files?filter=${filter}`, { token: uploader });
      assert.is((rows.body as unknown[]).length, 1, `${title}: one file`);
    }
    assert.equal(await storedKeys(storage, 'tus/'), []);
  });

  test('a finished upload the caller may not read answers without a body, and without a JSON type for one', async (context) => {
    const { app, admin } = context;
    const blind = await app.createRole({ name: 'Blind uploaders' });
    const granted = await app.request('POST', '/permissions', {
      token: admin,
      body: { role: blind.id, collection: 'datagate_files', action: 'create', fields: '*' },
    });
    assert.is(granted.status, 200, granted.text);
    const token = (await app.login(await app.createUser({ role: blind.id }))).access_token;
    const created = await create(app, token, 5, { filename: 'blind.txt' });
    assert.is(created.status, 201, await created.text());
    const finished = await patch(
      `${app.url}${created.headers.get('location')}`,
      token,
      0,
      Buffer.from('01234'),
    );
    assert.is(finished.status, 204);
    assert.is(finished.headers.get('content-type'), null, 'a 204 declares no type');
    // A creation that brings every byte answers 201 (for its Location), with nothing to show.
    const whole = await fetch(`${app.url}/files/tus`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${token}`,
        'Tus-Resumable': '1.0.0',
        'Upload-Length': '5',
        'Upload-Metadata': `filename ${Buffer.from('blind.txt').toString('base64')}`,
        'Content-Type': 'application/offset+octet-stream',
      },
      body: Buffer.from('01234'),
    });
    assert.is(whole.status, 201);
    assert.is(await whole.text(), '');
    // As every creation's empty 201 (@tus/server's own type for it), never a JSON that is not there.
    assert.not.match(whole.headers.get('content-type') ?? '', /json/, 'an empty 201 declares no JSON');
  });

  test('an upload whose commit failed after its last byte is committed when its client asks for the offset', async (context) => {
    const { app, uploader, storage } = context;
    let failures = 1;
    const faulty = await startTestApp({
      persistence: app.persistence,
      env: instanceEnv(target.name),
      rebind: (container) => {
        container.rebind<FileStorage>(TYPES.FileStorage).toConstantValue(storage);
        const real = container.get(UploadFilesHandler);
        const failingOnce = Object.create(real) as UploadFilesHandler;
        failingOnce.execute = (caller, command) =>
          failures-- > 0
            ? Promise.reject(new Error('the database went away'))
            : real.execute(caller, command);
        container.rebind(UploadFilesHandler).toConstantValue(failingOnce);
      },
    });
    try {
      const bytes = Buffer.from('0123456789');
      const created = await create(faulty, uploader, bytes.length, {
        filename: 'late.txt',
        title: 'committed late',
      });
      const path = created.headers.get('location')!;
      const last = await patch(`${faulty.url}${path}`, uploader, 0, bytes);
      assert.is(last.status, 500, 'the commit failed after every byte was stored');
      // What a client does before it resumes, here on the other instance: the offset says "done", so the
      // file must exist now.
      const offset = await head(`${app.url}${path}`, uploader);
      assert.is(offset.status, 200);
      assert.is(offset.headers.get('upload-offset'), '10');
      assert.is(offset.headers.get('upload-length'), '10');
      const filter = encodeURIComponent(JSON.stringify({ title: { _eq: 'committed late' } }));
      const rows = (await app.request('GET', `/files?filter=${filter}`, { token: uploader })).body as Array<{
        filesize: number;
      }>;
      assert.equal(
        rows.map((row) => row.filesize),
        [10],
      );
      assert.is((await head(`${app.url}${path}`, uploader)).status, 404, 'the upload is gone once committed');
      assert.equal(await storedKeys(storage, 'tus/'), []);
    } finally {
      await faulty.close();
    }
  });

  test('a 503 at the commit says when to retry, as every 503 does, keeps the upload for that retry, and is counted', async (context) => {
    const { app, uploader, storage } = context;
    let failures = 2;
    const metrics = new RecordingMetrics();
    // As the persistence adapters translate a lost connection: the driver's error kept as the cause.
    const lost = () => Object.assign(serviceUnavailable(), { cause: new Error('Connection terminated') });
    const busy = await startTestApp({
      persistence: app.persistence,
      env: instanceEnv(target.name),
      rebind: (container) => {
        container.rebind<FileStorage>(TYPES.FileStorage).toConstantValue(storage);
        container.rebind<Metrics>(TYPES.Metrics).toConstantValue(metrics);
        const real = container.get(UploadFilesHandler);
        const unavailable = Object.create(real) as UploadFilesHandler;
        unavailable.execute = (caller, command) =>
          failures-- > 0 ? Promise.reject(lost()) : real.execute(caller, command);
        container.rebind(UploadFilesHandler).toConstantValue(unavailable);
      },
    });
    try {
      const created = await create(busy, uploader, 10, { filename: 'retry.txt', title: 'retried' });
      const path = created.headers.get('location')!;
      const last = await patch(`${busy.url}${path}`, uploader, 0, Buffer.from('0123456789'));
      assert.is(last.status, 503);
      assert.is(last.headers.get('retry-after'), '5');
      assert.is(last.headers.get('content-type'), 'application/json; charset=utf-8');
      assert.equal((await last.json()) as unknown, {
        errors: [
          {
            message: 'The service is unavailable. Try again shortly.',
            extensions: { code: 'SERVICE_UNAVAILABLE', retryAfter: 5 },
          },
        ],
      });
      const offset = await head(`${busy.url}${path}`, uploader);
      assert.is(offset.status, 503, 'the HEAD that commits it meets the same 503');
      assert.is(offset.headers.get('retry-after'), '5');
      // datagate_database_errors_total, as for the failures of any other request (docs/api.md §11).
      assert.equal(metrics.databaseFailures, ['unreachable', 'unreachable']);
      const retried = await head(`${busy.url}${path}`, uploader);
      assert.is(retried.status, 200, 'the bytes were kept for the retry');
      assert.is(retried.headers.get('upload-offset'), '10');
      const filter = encodeURIComponent(JSON.stringify({ title: { _eq: 'retried' } }));
      const rows = await app.request('GET', `/files?filter=${filter}`, { token: uploader });
      assert.is((rows.body as unknown[]).length, 1);
    } finally {
      await busy.close();
    }
  });

  test('malformed or hostile TUS requests are refused with a 4xx, never a 500', async (context) => {
    const { app, uploader } = context;
    const headers = (extra: Record<string, string>) => ({
      Authorization: `Bearer ${uploader}`,
      'Tus-Resumable': '1.0.0',
      ...extra,
    });
    const metadata = (value: string) => ({ 'Upload-Length': '10', 'Upload-Metadata': value });
    const b64 = (text: string) => Buffer.from(text).toString('base64');
    const bytes64 = (...bytes: number[]) => Buffer.from(bytes).toString('base64');
    const admissible = { 'Upload-Metadata': `filename ${b64('a.txt')},title ${b64('t')}` };
    const post = (extra: Record<string, string>) => () =>
      fetch(`${app.url}/files/tus`, { method: 'POST', headers: headers({ ...admissible, ...extra }) });
    const bytes = 'application/offset+octet-stream';
    const patchWith =
      (extra: Record<string, string>, body = '01234', suffix = '') =>
      (upload: string) =>
        fetch(`${upload}${suffix}`, { method: 'PATCH', headers: headers(extra), body: Buffer.from(body) });
    const at = (method: string, path: string) => (): Promise<Response> =>
      fetch(`${app.url}${path}`, { method, headers: headers({}) });
    // [case, expected status, the request, given a new upload of 10 bytes]
    const cases: Array<[string, number, (upload: string) => Promise<Response>]> = [
      ['Upload-Length not a number', 400, post({ 'Upload-Length': 'ten' })],
      ['Upload-Length negative', 400, post({ 'Upload-Length': '-1' })],
      ['Upload-Length not whole', 400, post({ 'Upload-Length': '1.5' })],
      ['Upload-Length in exponent form', 400, post({ 'Upload-Length': '1e3' })],
      ['Upload-Length missing', 400, post({ 'Upload-Metadata': `title ${b64('t')}` })],
      ['Upload-Length over the limit', 413, post({ 'Upload-Length': String(MAX_UPLOAD + 1) })],
      // Extensions not in Tus-Extension: 400, not @tus/server's 501 (docs/api.md §15).
      ['Upload-Defer-Length (not served)', 400, post({ 'Upload-Defer-Length': '1' })],
      [
        'Upload-Concat partial (not served)',
        400,
        post({ 'Upload-Length': '10', 'Upload-Concat': 'partial' }),
      ],
      ['Upload-Concat final (not served)', 400, post({ 'Upload-Concat': 'final;/files/tus/a /files/tus/b' })],
      ['Tus-Resumable of another version', 412, post({ 'Upload-Length': '10', 'Tus-Resumable': '0.2.2' })],
      ['Upload-Metadata not base64', 400, post(metadata('title !!!!'))],
      ['Upload-Metadata empty', 400, post(metadata(''))],
      ['Upload-Metadata key twice', 400, post(metadata(`title ${b64('a')},title ${b64('b')}`))],
      ['Upload-Metadata key __proto__', 400, post(metadata(`__proto__ ${b64('a')}`))],
      ['Upload-Metadata value with NUL', 400, post(metadata(`filename ${b64('a')},title ${b64('a\u0000')}`))],
      ['Upload-Metadata unknown field', 400, post(metadata(`filename ${b64('a')},nope ${b64('a')}`))],
      [
        'Upload-Metadata metadata with a __proto__ key',
        400,
        post(metadata(`filename ${b64('a')},metadata ${b64('{"__proto__":{"polluted":true}}')}`)),
      ],
      // Not UTF-8: a byte that starts nothing, an encoded lone surrogate; never stored as U+FFFD (§4a).
      [
        'Upload-Metadata value not UTF-8',
        400,
        post(metadata(`filename ${b64('a')},title ${bytes64(0x61, 0xff)}`)),
      ],
      [
        'Upload-Metadata value an encoded lone surrogate',
        400,
        post(metadata(`filename ${bytes64(0xed, 0xa0, 0x80)}`)),
      ],
      ['Upload-Offset not a number', 400, patchWith({ 'Upload-Offset': 'zero', 'Content-Type': bytes })],
      ['Upload-Offset negative', 400, patchWith({ 'Upload-Offset': '-1', 'Content-Type': bytes })],
      [
        'Upload-Offset unsafe',
        400,
        patchWith({ 'Upload-Offset': '99999999999999999999', 'Content-Type': bytes }),
      ],
      ["Upload-Offset not the upload's", 409, patchWith({ 'Upload-Offset': '5', 'Content-Type': bytes })],
      ['Upload-Offset missing', 400, patchWith({ 'Content-Type': bytes })],
      [
        'Content-Type not offset+octet-stream',
        415,
        patchWith({ 'Upload-Offset': '0', 'Content-Type': 'text/plain' }),
      ],
      ['Content-Type missing', 415, patchWith({ 'Upload-Offset': '0' })],
      [
        'Content-Encoding on a PATCH (the bytes would be stored as sent)',
        415,
        patchWith({ 'Upload-Offset': '0', 'Content-Type': bytes, 'Content-Encoding': 'gzip' }),
      ],
      ['Content-Encoding on a creation', 415, post({ 'Upload-Length': '10', 'Content-Encoding': 'br' })],
      [
        'a body past Upload-Length',
        413,
        patchWith({ 'Upload-Offset': '0', 'Content-Type': bytes }, '0123456789!'),
      ],
      [
        'Upload-Length on a PATCH (not served: creation-defer-length)',
        400,
        patchWith({ 'Upload-Offset': '0', 'Content-Type': bytes, 'Upload-Length': '10' }),
      ],
      [
        'Upload-Checksum (not served: checksum)',
        400,
        patchWith({
          'Upload-Offset': '0',
          'Content-Type': bytes,
          'Upload-Checksum': 'sha1 Kq5sNclPz7QV2+lfQIuc6R7oRu0=',
        }),
      ],
      [
        'Tus-Resumable missing',
        412,
        (upload) => fetch(upload, { method: 'HEAD', headers: { Authorization: `Bearer ${uploader}` } }),
      ],
      [
        'a query string after the id',
        204,
        patchWith({ 'Upload-Offset': '0', 'Content-Type': bytes }, '01234', '?x=1'),
      ],
      ['a slash after the id', 404, patchWith({ 'Upload-Offset': '0', 'Content-Type': bytes }, '01234', '/')],
      [
        'HEAD with a query string',
        200,
        (upload) => fetch(`${upload}?x=1`, { method: 'HEAD', headers: headers({}) }),
      ],
      [
        'DELETE with a query string',
        204,
        (upload) => fetch(`${upload}?x=1`, { method: 'DELETE', headers: headers({}) }),
      ],
      ['an id that is not an upload id', 404, at('HEAD', '/files/tus/not-an-upload')],
      ['an id in capitals', 404, at('HEAD', `/files/tus/${'A'.repeat(32)}`)],
      ['an id nobody created', 404, at('PATCH', `/files/tus/${'0'.repeat(32)}`)],
      ['an id with a bad percent-escape', 400, at('DELETE', '/files/tus/%zz')],
      ['an id with an escaped slash', 404, at('HEAD', '/files/tus/a%2Fb')],
    ];
    for (const [name, status, send] of cases) {
      const created = await create(app, uploader, 10, { filename: 'probe.txt', title: 'probe' });
      const answer = await send(new URL(created.headers.get('location')!, app.url).href);
      const body = await answer.text();
      assert.is(answer.status, status, `${name}: ${answer.status} ${body}`);
      assert.not.match(body, /INTERNAL/, name);
      // Protocol §Tus-Resumable: a 412 names the versions the server speaks.
      if (status === 412) assert.is(answer.headers.get('tus-version'), '1.0.0', name);
    }
    // Text a multipart form field may not hold is refused in the same words: the field named, INVALID_PAYLOAD.
    const nul = await post(metadata(`filename ${b64('a')},title ${b64('a\u0000')}`))();
    const nulError = ((await nul.json()) as { errors: [{ extensions: unknown }] }).errors[0];
    assert.equal(nulError.extensions, { code: 'INVALID_PAYLOAD', field: 'title' });
  });

  if (target.name === 'postgresql') {
    test("closing the server ends the locks' pool, once the upload in flight has let go of its lock", async (context) => {
      const { uploader, storage } = context;
      // A database of its own, so that only this server's locks' connections are counted in it.
      const locks = `datagate_tus_locks_${process.pid}`;
      await administer(`create database "${locks}"`);
      const client = new pg.Client({ connectionString: testDatabaseUrl() });
      await client.connect();
      const lockConnections = async () => {
        const { rows } = await client.query<{ count: number }>(
          "select count(*)::int as count from pg_stat_activity where datname = $1 and application_name = 'datagate upload locks'",
          [locks],
        );
        return rows[0]!.count;
      };
      try {
        const server = await startTestApp({
          persistence: context.app.persistence,
          env: instanceEnv(target.name, locks),
          rebind: (container) => container.rebind<FileStorage>(TYPES.FileStorage).toConstantValue(storage),
        });
        const created = await create(server, uploader, 10, { filename: 'closing.txt', title: 'closing' });
        const url = new URL(created.headers.get('location')!, server.url).href;
        const held = await heldPatch(storage, url, uploader, 0, Buffer.from('01234'));
        const cut = held.answer.then(
          () => 'answered',
          () => 'cut',
        );
        assert.ok((await lockConnections()) >= 1, 'the PATCH holds a connection of the locks');
        await server.close();
        assert.is(await lockConnections(), 0);
        assert.is(await cut, 'cut');
      } finally {
        await client.end();
        await administer(`drop database if exists "${locks}" with (force)`);
      }
    });
  }

  // Last: it moves the app's clock past every token's lifetime.
  test('a user has at most storage.tus.maxUnfinished unfinished uploads, counted across instances', async (context) => {
    const { app, otherInstance, limited, storage } = context;
    const user = await app.createUser({ role: context.uploadersRole });
    const token = (await app.login(user)).access_token;
    const begin = (instance: TestApp, as = token) =>
      create(instance, as, 10, { filename: 'many.txt', title: 'many' });
    const first = await begin(app);
    const second = await begin(otherInstance);
    assert.is(first.status, 201);
    assert.is(second.status, 201);
    const writes = storage.begun;
    const refused = await begin(limited);
    assert.is(refused.status, 429, 'the uploads begun on the other instances count');
    const body = (await refused.json()) as { errors: [{ extensions: { code: string; reason: string } }] };
    assert.is(body.errors[0].extensions.code, 'TOO_MANY_REQUESTS');
    assert.is(body.errors[0].extensions.reason, 'TOO_MANY_UPLOADS');
    // Until the oldest expires (storage.tus.expiry, 24 h), unless the caller ends one first.
    const retryAfter = Number(refused.headers.get('retry-after'));
    assert.ok(retryAfter > 23 * 3600 && retryAfter <= 24 * 3600, `Retry-After: ${retryAfter}`);
    assert.is(storage.begun, writes, 'nothing stored');
    const someoneElse = (await app.login(await app.createUser({ role: context.uploadersRole }))).access_token;
    assert.is((await begin(limited, someoneElse)).status, 201, 'the limit is per user');

    const firstUrl = new URL(first.headers.get('location')!, app.url).href;
    const terminated = await fetch(firstUrl, {
      method: 'DELETE',
      headers: { Authorization: `Bearer ${token}`, 'Tus-Resumable': '1.0.0' },
    });
    assert.is(terminated.status, 204);
    const third = await begin(limited);
    assert.is(third.status, 201, 'a terminated upload frees its place');
    assert.is((await begin(limited)).status, 429);
    const secondUrl = new URL(second.headers.get('location')!, app.url).href;
    assert.is((await patch(secondUrl, token, 0, Buffer.from('0123456789'))).status, 200);
    assert.is((await begin(limited)).status, 201, 'a finished upload frees its place');

    limited.clock.advance(25 * 60 * 60 * 1000);
    const later = (await limited.login(user)).access_token;
    const together = await Promise.all(Array.from({ length: 4 }, () => begin(limited, later)));
    assert.equal(
      together.map((answer) => answer.status).sort(),
      [201, 201, 429, 429],
      'expired uploads count no more; creations at once are counted one after the other',
    );
  });

  test('an expired upload answers 404 and its parts are removed', async (context) => {
    const { app, uploader, storage } = context;
    const created = await create(app, uploader, 10, { filename: 'late.txt', title: 'late' });
    const url = new URL(created.headers.get('location')!, app.url).href;
    assert.is((await patch(url, uploader, 0, Buffer.from('01234'))).status, 204);
    const id = url.split('/').pop()!;
    assert.is((await storedKeys(storage, `tus/${id}/`)).length, 2);
    app.clock.advance(25 * 60 * 60 * 1000);
    const later = (await app.login(context.uploaderUser)).access_token;
    assert.is((await head(url, later)).status, 404);
    assert.equal(await storedKeys(storage, `tus/${id}/`), []);
  });

  test.run();
}

const off = suitePerBackend<Record<string, never>>(backends().slice(0, 1), () => 'resumable uploads off')[0]!;
off[1]('/files/tus answers 404 unless storage.tus.enabled', async () => {
  await withTestApp(async (app) => {
    const token = (await app.login(await app.seedAdmin())).access_token;
    const answer = await create(app, token, 10, { filename: 'x.txt', title: 'x' });
    assert.is(answer.status, 404);
    const tunnelled = await fetch(`${app.url}/files/tus/${'0'.repeat(32)}`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${token}`,
        'Tus-Resumable': '1.0.0',
        'X-HTTP-Method-Override': 'DELETE',
      },
    });
    assert.is(tunnelled.status, 404);
  });
});
off[1].after(() => off[0].dispose());
off[1].run();
