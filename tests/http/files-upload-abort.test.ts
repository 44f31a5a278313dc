import { connect, type Socket } from 'node:net';
import * as assert from 'uvu/assert';
import type { FileStorage } from '../../src/application/ports/file-storage.ts';
import { TYPES } from '../../src/container.ts';
import { backends, borrowed } from '../support/databases.ts';
import { suitePerBackend } from '../support/suite-per-backend.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { WatchedStorage } from '../support/watched-file-storage.ts';

type Context = { app: TestApp; storage: WatchedStorage; admin: string; reader: string };

const BOUNDARY = 'datagate-boundary';

/** A multipart request's head and body up to the first bytes of its file, announcing `length` bytes in all. */
function uploadStart(url: string, token: string, length: number): string {
  const { host } = new URL(url);
  const body =
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="title"\r\n\r\npublic\r\n` +
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\n` +
    'Content-Type: application/octet-stream\r\n\r\n';
  return (
    `POST /files HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${token}\r\n` +
    `Content-Type: multipart/form-data; boundary=${BOUNDARY}\r\nContent-Length: ${length}\r\n\r\n${body}`
  );
}

function open(url: string): Promise<Socket> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => resolve(socket));
    socket.on('error', reject);
  });
}

/** Waits, without a deadline of its own (the run's timeout is the bound), until `done` holds. */
async function until(done: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await done())) await new Promise((resolve) => setTimeout(resolve, 10));
}

async function storedKeys(storage: FileStorage): Promise<string[]> {
  const keys: string[] = [];
  for await (const object of storage.list('')) keys.push(object.key);
  return keys;
}

for (const [target, test] of suitePerBackend<Context>(
  backends(),
  (backend) => `uploads cut short on ${backend}`,
)) {
  test.before(async (context) => {
    const persistence = borrowed(await target.fresh());
    context.storage = new WatchedStorage();
    context.app = await startTestApp({
      persistence,
      rebind: (container) =>
        container.rebind<FileStorage>(TYPES.FileStorage).toConstantValue(context.storage),
    });
    const { app } = context;
    context.admin = (await app.login(await app.seedAdmin())).access_token;
    const role = await app.createRole({ name: 'Readers' });
    const granted = await app.request('POST', '/permissions', {
      token: context.admin,
      body: { role: role.id, collection: 'datagate_files', action: 'read', fields: ['*'] },
    });
    assert.is(granted.status, 200);
    context.reader = (await app.login(await app.createUser({ role: role.id }))).access_token;
  });
  test.after(async ({ app }) => {
    await app.close();
    await target.dispose();
  });

  const files = async ({ app, admin }: Context) =>
    (await app.request('GET', '/files?fields=id', { token: admin })).body as unknown[];

  test('a client that goes away mid-upload leaves no row and no bytes', async (context) => {
    const { app, admin, storage } = context;
    const writes = storage.begun;
    const socket = await open(app.url);
    socket.write(uploadStart(app.url, admin, 10 * 1024 * 1024));
    socket.write(Buffer.alloc(256 * 1024, 1));
    await until(() => storage.begun === writes + 1);
    socket.destroy();
    await until(() => storage.settled === writes + 1);
    assert.equal(await storedKeys(storage), []);
    assert.equal(await files(context), []);
  });

  test('a refused upload is answered before its body is read, and the connection closed', async (context) => {
    const { app, reader, storage } = context;
    const writes = storage.begun;
    const socket = await open(app.url);
    const answer = new Promise<string>((resolve) => {
      let text = '';
      socket.on('data', (chunk) => {
        text += chunk.toString('latin1');
      });
      socket.on('close', () => resolve(text));
    });
    // 50 MB announced, a few bytes of the file sent: the answer must come without the rest.
    socket.write(uploadStart(app.url, reader, 50 * 1024 * 1024));
    socket.write('first bytes');
    const text = await answer;
    assert.match(text, /^HTTP\/1\.1 403 /);
    assert.match(text, /\r\nConnection: close\r\n/i);
    assert.is(storage.begun, writes);
    assert.equal(await files(context), []);
  });

  test.run();
}
