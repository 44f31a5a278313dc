import { randomBytes } from 'node:crypto';
import * as tus from 'tus-js-client';
import * as assert from 'uvu/assert';
import type { FileStorage } from '../../src/application/ports/file-storage.ts';
import { TYPES } from '../../src/container.ts';
import { backends, borrowed } from '../support/databases.ts';
import { testDatabaseUrl } from '../support/postgres-server.ts';
import { suitePerBackend } from '../support/suite-per-backend.ts';
import { startTcpProxy } from '../support/tcp-proxy.ts';
import { type SeededUser, startTestApp, type TestApp, withTestApp } from '../support/test-app.ts';
import { WatchedStorage } from '../support/watched-file-storage.ts';

type Context = {
  app: TestApp;
  /** Another instance on the same database and file store. */
  otherInstance: TestApp;
  storage: WatchedStorage;
  admin: string;
  uploader: string;
  uploaderUser: SeededUser;
  otherUploader: string;
  reader: string;
};

const MAX_UPLOAD = 4 * 1024 * 1024;
const CHUNK = 256 * 1024;

/**
 * On PostgreSQL the instances lock uploads with advisory locks (`database.url` set; the login throttle
 * kept in memory, so that it makes no table of its own there).
 */
function instanceEnv(backend: string): Record<string, string> {
  const env = { STORAGE_TUS_ENABLED: 'true', STORAGE_MAX_UPLOAD_SIZE: String(MAX_UPLOAD) };
  if (backend !== 'postgresql') return env;
  return { ...env, DATABASE_URL: testDatabaseUrl(), LOGIN_THROTTLE_STORE: 'memory' };
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
    const { app } = context;
    context.admin = (await app.login(await app.seedAdmin())).access_token;
    const grant = async (body: Record<string, unknown>) => {
      const created = await app.request('POST', '/permissions', { token: context.admin, body });
      assert.is(created.status, 200, created.text);
    };
    const uploaders = await app.createRole({ name: 'Uploaders' });
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
  test.after(async ({ app, otherInstance }) => {
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
  });
});
off[1].after(() => off[0].dispose());
off[1].run();
