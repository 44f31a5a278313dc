import { createHash, randomUUID } from 'node:crypto';
import { get as httpGet, type IncomingHttpHeaders } from 'node:http';
import * as assert from 'uvu/assert';
import { InMemoryFileStorage } from '../../src/adapters/persistence/memory/in-memory-file-storage.ts';
import type { FileStorage } from '../../src/application/ports/file-storage.ts';
import { TYPES } from '../../src/container.ts';
import { backends, borrowed } from '../support/databases.ts';
import { suitePerBackend } from '../support/suite-per-backend.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';

/** A PNG's signature and header: enough for the sniffer, whatever the upload declares. */
const PNG = Buffer.concat([Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'), Buffer.alloc(200, 7)]);

type Context = {
  app: TestApp;
  storage: InMemoryFileStorage;
  admin: string;
  reader: string;
  readerId: string;
  uploader: string;
};

const errorOf = (body: unknown) =>
  (body as { errors: Array<{ message: string; extensions: Record<string, unknown> }> }).errors[0]!;

type FileRow = Record<string, unknown> & { id: string };

/** A multipart body: fields in order, then the files, each `[name, bytes, type]`. */
function form(fields: Array<[string, string]>, files: Array<[string, Uint8Array, string]> = []): FormData {
  const body = new FormData();
  for (const [name, value] of fields) body.append(name, value);
  for (const [name, bytes, type] of files) body.append('file', new Blob([bytes], { type }), name);
  return body;
}

async function send(app: TestApp, method: string, path: string, token: string, body?: FormData) {
  const response = await fetch(`${app.url}${path}`, {
    method,
    headers: { Authorization: `Bearer ${token}` },
    ...(body ? { body } : {}),
  });
  const bytes = Buffer.from(await response.arrayBuffer());
  const text = bytes.toString('utf8');
  const json = (() => {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return null;
    }
  })();
  return { status: response.status, headers: response.headers, bytes, text, body: json };
}

async function keys(storage: FileStorage): Promise<string[]> {
  const found: string[] = [];
  for await (const object of storage.list('')) found.push(object.key);
  return found;
}

for (const [target, test] of suitePerBackend<Context>(
  backends(),
  (backend) => `/files and /assets on ${backend}`,
)) {
  test.before(async (context) => {
    const persistence = borrowed(await target.fresh());
    context.storage = new InMemoryFileStorage();
    context.app = await startTestApp({
      persistence,
      env: { STORAGE_MAX_UPLOAD_SIZE: '64kb' },
      rebind: (container) =>
        container.rebind<FileStorage>(TYPES.FileStorage).toConstantValue(context.storage),
    });
    const { app } = context;
    context.admin = (await app.login(await app.seedAdmin())).access_token;
    const grant = async (body: Record<string, unknown>) => {
      const created = await app.request('POST', '/permissions', { token: context.admin, body });
      assert.is(created.status, 200, created.text);
    };
    const readers = await app.createRole({ name: 'Readers' });
    await grant({
      role: readers.id,
      collection: 'datagate_files',
      action: 'read',
      permissions: { title: { _starts_with: 'public' } },
      fields: ['id', 'title'],
    });
    const reader = await app.createUser({ role: readers.id });
    context.readerId = reader.id;
    context.reader = (await app.login(reader)).access_token;
    const uploaders = await app.createRole({ name: 'Uploaders' });
    await grant({
      role: uploaders.id,
      collection: 'datagate_files',
      action: 'create',
      fields: ['title', 'filename_download', 'description'],
      validation: { title: { _nnull: true } },
    });
    await grant({ role: uploaders.id, collection: 'datagate_files', action: 'read', fields: ['*'] });
    context.uploader = (await app.login(await app.createUser({ role: uploaders.id }))).access_token;
  });
  test.after(async ({ app }) => {
    await app.close();
    await target.dispose();
  });

  const upload = async ({ app, admin }: Context, title: string, bytes: Uint8Array = PNG) => {
    const answer = await send(
      app,
      'POST',
      '/files',
      admin,
      form([['title', title]], [['photo.png', bytes, 'text/plain']]),
    );
    assert.is(answer.status, 200, answer.text);
    return answer.body as FileRow;
  };

  test('an upload stores the bytes under files/<id> and the row says what they are', async (context) => {
    const row = await upload(context, 'public photo');
    assert.is(row.filename_download, 'photo.png');
    assert.is(row.filename_disk, `files/${row.id}`);
    assert.is(row.type, 'image/png', 'the sniffed type wins over the declared one');
    assert.is(Number(row.filesize), PNG.length);
    assert.is(row.checksum, createHash('sha256').update(PNG).digest('hex'));
    assert.ok(row.uploaded_on);
    assert.ok(row.uploaded_by);
    assert.ok((await keys(context.storage)).includes(`files/${row.id}`));
    assert.not.ok((await keys(context.storage)).some((key) => key.startsWith('tmp/')));
  });

  test('an asset is the bytes, sandboxed, with its ETag, length and disposition', async (context) => {
    const row = await upload(context, 'public asset');
    const asset = await send(context.app, 'GET', `/assets/${row.id}`, context.admin);
    assert.is(asset.status, 200);
    assert.equal(asset.bytes, PNG);
    assert.is(asset.headers.get('content-type'), 'image/png');
    assert.is(asset.headers.get('content-length'), String(PNG.length));
    assert.is(asset.headers.get('etag'), `"${row.checksum}"`);
    assert.is(asset.headers.get('content-security-policy'), 'sandbox');
    assert.is(asset.headers.get('x-content-type-options'), 'nosniff');
    assert.is(asset.headers.get('content-disposition'), 'inline; filename="photo.png"');
    const download = await send(context.app, 'GET', `/assets/${row.id}/any-name.png?download`, context.admin);
    assert.is(download.headers.get('content-disposition'), 'attachment; filename="photo.png"');
    const head = await fetch(`${context.app.url}/assets/${row.id}`, {
      method: 'HEAD',
      headers: { Authorization: `Bearer ${context.admin}` },
    });
    assert.is(head.status, 200);
    assert.is(head.headers.get('content-length'), String(PNG.length));
  });

  test('missing, hidden and malformed ids are the same 404', async (context) => {
    const shown = await upload(context, 'public shown');
    const hidden = await upload(context, 'private hidden');
    const { app, reader } = context;
    assert.is((await send(app, 'GET', `/assets/${shown.id}`, reader)).status, 200);
    const answers = await Promise.all(
      [hidden.id, randomUUID(), 'not-a-uuid', '..%2F..%2Fetc%2Fpasswd'].map((id) =>
        send(app, 'GET', `/assets/${id}`, reader),
      ),
    );
    for (const answer of answers) assert.is(answer.status, 404, answer.text);
    const [first, ...others] = answers.map((answer) => answer.text.replace(/"[0-9a-f-]{36}"/g, ''));
    for (const other of others) assert.is(other, first);
    assert.is((await send(app, 'GET', `/files/${hidden.id}`, reader)).status, 404);
    const listed = (await send(app, 'GET', '/files?fields=title', reader)).body as Array<{ title: string }>;
    assert.ok(listed.every((file) => file.title.startsWith('public')));
  });

  test('without a read permission on files a file is refused whether or not it exists', async (context) => {
    const { app } = context;
    const existing = await upload(context, 'public existing');
    const role = await app.createRole({ name: 'No file reads' });
    const token = (await app.login(await app.createUser({ role: role.id }))).access_token;
    for (const [caller, status] of [
      [token, 403],
      [undefined, 401],
    ] as const) {
      for (const path of ['/files', '/assets']) {
        const answers = await Promise.all(
          [existing.id, randomUUID()].map((id) => app.request('GET', `${path}/${id}`, { token: caller })),
        );
        for (const answer of answers) assert.is(answer.status, status, `${path}: ${answer.text}`);
        assert.is(answers[1]!.text, answers[0]!.text, path);
      }
    }
    // An id that is no uuid is 404 whoever asks, before any permission: it depends on the id's form only.
    assert.is((await app.request('GET', '/files/not-a-uuid', { token })).status, 404);
  });

  test('ranges, conditional requests and what is not a range', async (context) => {
    const row = await upload(context, 'public ranged');
    const { app, admin } = context;
    // node:http, not fetch: fetch adds `Cache-Control: no-cache` to a conditional request, which asks
    // the server for a fresh answer.
    const get = (headers: Record<string, string | string[]>) =>
      new Promise<{ status: number; headers: IncomingHttpHeaders; bytes: Buffer }>((resolve, reject) => {
        const request = httpGet(
          `${app.url}/assets/${row.id}`,
          { headers: { Authorization: `Bearer ${admin}`, ...headers } },
          async (response) => {
            const chunks: Buffer[] = [];
            for await (const chunk of response) chunks.push(chunk as Buffer);
            resolve({
              status: response.statusCode!,
              headers: response.headers,
              bytes: Buffer.concat(chunks),
            });
          },
        );
        request.on('error', reject);
      });
    const lastModified = (await get({})).headers['last-modified']!;
    const [weekday, day, month, year, time] = lastModified.replace(',', '').split(' ') as string[];
    const longWeekday = new Date(lastModified).toLocaleDateString('en-US', {
      weekday: 'long',
      timeZone: 'UTC',
    });
    const tomorrow = new Date(context.app.clock.now().getTime() + 86_400_000).toUTCString();
    const older = 'Sun, 06 Nov 1994 08:49:37 GMT';
    const etag = `"${row.checksum}"`;
    const cases: Array<[string, Record<string, string | string[]>, number, string | null, number | null]> = [
      ['one range', { Range: 'bytes=2-5' }, 206, `bytes 2-5/${PNG.length}`, 4],
      ['a suffix', { Range: 'bytes=-3' }, 206, `bytes ${PNG.length - 3}-${PNG.length - 1}/${PNG.length}`, 3],
      [
        'an open end',
        { Range: `bytes=${PNG.length - 1}-` },
        206,
        `bytes ${PNG.length - 1}-${PNG.length - 1}/${PNG.length}`,
        1,
      ],
      ['beyond the end', { Range: `bytes=${PNG.length}-` }, 416, `bytes */${PNG.length}`, null],
      [
        'a last past 2^53, clamped to the end',
        { Range: 'bytes=0-9007199254740993' },
        206,
        `bytes 0-${PNG.length - 1}/${PNG.length}`,
        PNG.length,
      ],
      ['a first past 2^53', { Range: 'bytes=9007199254740993-' }, 416, `bytes */${PNG.length}`, null],
      ['garbage', { Range: 'bytes=banana' }, 200, null, PNG.length],
      ['reversed', { Range: 'bytes=9-3' }, 200, null, PNG.length],
      ['several ranges', { Range: 'bytes=0-1,4-5' }, 200, null, PNG.length],
      ['an outdated If-Range', { Range: 'bytes=0-1', 'If-Range': '"other"' }, 200, null, PNG.length],
      ['If-Range with the ETag', { Range: 'bytes=0-1', 'If-Range': etag }, 206, `bytes 0-1/${PNG.length}`, 2],
      // RFC 9110 §13.1.5: compared strongly; a date is a weak validator here, so it never matches.
      [
        'If-Range with the ETag, weak',
        { Range: 'bytes=0-1', 'If-Range': `W/${etag}` },
        200,
        null,
        PNG.length,
      ],
      [
        'If-Range with Last-Modified',
        { Range: 'bytes=0-1', 'If-Range': lastModified },
        200,
        null,
        PNG.length,
      ],
      // §13.2.2 steps 1 and 2: a failed If-Match or If-Unmodified-Since is 412, before anything else.
      ['If-Match with the ETag', { 'If-Match': etag }, 200, null, PNG.length],
      ['If-Match: *', { 'If-Match': '*' }, 200, null, PNG.length],
      ['If-Match among others', { 'If-Match': `"other", ${etag}` }, 200, null, PNG.length],
      [
        'If-Match with the ETag and a range',
        { 'If-Match': etag, Range: 'bytes=2-5' },
        206,
        `bytes 2-5/${PNG.length}`,
        4,
      ],
      ['If-Match with another ETag', { 'If-Match': '"other"' }, 412, null, null],
      ['If-Match with the ETag, weak: compared strongly', { 'If-Match': `W/${etag}` }, 412, null, null],
      [
        'If-Match with another ETag, If-None-Match with the ETag',
        { 'If-Match': '"other"', 'If-None-Match': etag },
        412,
        null,
        null,
      ],
      [
        'If-Match with another ETag and a range',
        { 'If-Match': '"other"', Range: 'bytes=2-5' },
        412,
        null,
        null,
      ],
      [
        'If-Match with the ETag decides alone',
        { 'If-Match': etag, 'If-Unmodified-Since': older },
        200,
        null,
        PNG.length,
      ],
      [
        'If-Unmodified-Since at Last-Modified',
        { 'If-Unmodified-Since': lastModified },
        200,
        null,
        PNG.length,
      ],
      ['If-Unmodified-Since in the future', { 'If-Unmodified-Since': tomorrow }, 200, null, PNG.length],
      ['If-Unmodified-Since before Last-Modified', { 'If-Unmodified-Since': older }, 412, null, null],
      [
        'If-Unmodified-Since before Last-Modified, If-None-Match with the ETag',
        { 'If-Unmodified-Since': older, 'If-None-Match': etag },
        412,
        null,
        null,
      ],
      // §13.1.4: ignored unless one valid HTTP-date.
      [
        'If-Unmodified-Since not an HTTP-date',
        { 'If-Unmodified-Since': new Date(older).toISOString() },
        200,
        null,
        PNG.length,
      ],
      ['If-Unmodified-Since a list', { 'If-Unmodified-Since': `${older}, ${older}` }, 200, null, PNG.length],
      ['If-Unmodified-Since twice', { 'If-Unmodified-Since': [older, older] }, 200, null, PNG.length],
      ['If-None-Match with the ETag', { 'If-None-Match': etag }, 304, null, null],
      ['If-None-Match: *', { 'If-None-Match': '*' }, 304, null, null],
      ['If-None-Match with another ETag', { 'If-None-Match': '"other"' }, 200, null, PNG.length],
      ['If-None-Match among others, weak', { 'If-None-Match': `"other", W/${etag}` }, 304, null, null],
      ['If-Modified-Since at Last-Modified', { 'If-Modified-Since': lastModified }, 304, null, null],
      [
        'If-Modified-Since as asctime',
        { 'If-Modified-Since': `${weekday} ${month} ${String(Number(day)).padStart(2)} ${time} ${year}` },
        304,
        null,
        null,
      ],
      [
        'If-Modified-Since as RFC 850',
        { 'If-Modified-Since': `${longWeekday}, ${day}-${month}-${year!.slice(2)} ${time} GMT` },
        304,
        null,
        null,
      ],
      ['If-Modified-Since before Last-Modified', { 'If-Modified-Since': older }, 200, null, PNG.length],
      // RFC 9110 §13.1.3: ignored when later than the server's clock, not an HTTP-date, or a list.
      ['If-Modified-Since in the future', { 'If-Modified-Since': tomorrow }, 200, null, PNG.length],
      [
        'If-Modified-Since not an HTTP-date',
        { 'If-Modified-Since': new Date(lastModified).toISOString() },
        200,
        null,
        PNG.length,
      ],
      [
        'If-Modified-Since a list',
        { 'If-Modified-Since': `${lastModified}, ${lastModified}` },
        200,
        null,
        PNG.length,
      ],
      [
        'If-Modified-Since twice',
        { 'If-Modified-Since': [lastModified, lastModified] },
        200,
        null,
        PNG.length,
      ],
      // §13.1.3: If-None-Match, when sent, decides alone.
      [
        'If-None-Match with the ETag, If-Modified-Since older',
        { 'If-None-Match': etag, 'If-Modified-Since': older },
        304,
        null,
        null,
      ],
      [
        'If-None-Match with another ETag, If-Modified-Since at Last-Modified',
        { 'If-None-Match': '"other"', 'If-Modified-Since': lastModified },
        200,
        null,
        PNG.length,
      ],
    ];
    for (const [name, headers, status, range, length] of cases) {
      const { status: answered, headers: received, bytes } = await get(headers);
      assert.is(answered, status, name);
      assert.is(received['content-range'] ?? null, range, name);
      if (length !== null) assert.is(bytes.length, length, name);
      if (status === 416 || status === 412) {
        // The answer is the error, not the file: JSON, nothing describing the file's bytes.
        assert.is(received['content-type'], 'application/json; charset=utf-8', name);
        assert.is(
          JSON.parse(bytes.toString()).errors[0].extensions.code,
          status === 416 ? 'RANGE_NOT_SATISFIABLE' : 'PRECONDITION_FAILED',
          name,
        );
        for (const header of ['content-disposition', 'etag', 'last-modified'])
          assert.is(received[header], undefined, `${name}: ${header}`);
        // An error answer, so no cache may keep it (§1), not the file's `private, no-cache`.
        assert.is(received['cache-control'], 'no-store', `${name}: cache-control`);
      }
      if (status === 206) {
        const [start] = range!.replace('bytes ', '').split('-').map(Number);
        assert.equal(bytes, PNG.subarray(start, start! + length!), name);
      }
    }
  });

  test('a refused upload stores nothing: no create permission, a field not granted, a failed validation', async (context) => {
    const { app, reader, uploader, storage } = context;
    const before = await keys(storage);
    const cases: Array<[string, string, FormData, number]> = [
      ['no create permission', reader, form([['title', 'x']], [['a.png', PNG, 'image/png']]), 403],
      [
        'a field not granted',
        uploader,
        form(
          [
            ['title', 'x'],
            ['metadata', '{}'],
          ],
          [['a.png', PNG, 'image/png']],
        ),
        403,
      ],
      ['a failed validation', uploader, form([], [['a.png', PNG, 'image/png']]), 400],
    ];
    for (const [name, token, body, status] of cases) {
      const answer = await send(app, 'POST', '/files', token, body);
      assert.is(answer.status, status, `${name}: ${answer.text}`);
    }
    assert.equal(await keys(storage), before);
    const allowed = await send(
      app,
      'POST',
      '/files',
      uploader,
      form([['title', 'mine']], [['a.png', PNG, 'image/png']]),
    );
    assert.is(allowed.status, 200, allowed.text);
  });

  test("a file's name is read as UTF-8, as browsers send it (and Directus reads it)", async ({
    app,
    admin,
  }) => {
    for (const name of ['fötö 写真.png', 'emoji 😀.png']) {
      const answer = await send(
        app,
        'POST',
        '/files',
        admin,
        form([['title', 'x']], [[name, PNG, 'image/png']]),
      );
      assert.is(answer.status, 200, answer.text);
      assert.is((answer.body as FileRow).filename_download, name);
    }
  });

  test('hostile uploads are refused with the documented answer, nothing stored', async (context) => {
    const { app, admin, storage } = context;
    const before = await keys(storage);
    const raw = (body: string, type: string) =>
      fetch(`${app.url}/files`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${admin}`, 'Content-Type': type },
        body,
      });
    const noBoundary = await raw('--x\r\n', 'multipart/form-data');
    assert.is(noBoundary.status, 400);
    assert.is(errorOf(await noBoundary.json()).extensions.code, 'INVALID_PAYLOAD');
    const noName = await raw(
      '--b\r\nContent-Disposition: form-data\r\nContent-Type: image/png\r\n\r\nabc\r\n--b--\r\n',
      'multipart/form-data; boundary=b',
    );
    assert.is(noName.status, 400, await noName.text());
    // A body said to be compressed is not read as sent (it was stored as is): an upload is sent plain.
    for (const encoding of ['gzip', 'x-unknown']) {
      const compressed = await fetch(`${app.url}/files`, {
        method: 'POST',
        headers: {
          Authorization: `Bearer ${admin}`,
          'Content-Type': 'multipart/form-data; boundary=b',
          'Content-Encoding': encoding,
        },
        body: '--b\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n\r\nabc\r\n--b--\r\n',
      });
      assert.is(compressed.status, 415, `${encoding}: ${await compressed.clone().text()}`);
      assert.is(errorOf(await compressed.json()).extensions.code, 'UNSUPPORTED_MEDIA_TYPE');
    }
    const cases: Array<[string, FormData, number, string]> = [
      ['no file', form([['title', 'x']]), 400, 'INVALID_PAYLOAD'],
      [
        'metadata after the file',
        (() => {
          const body = form([], [['a.png', PNG, 'image/png']]);
          body.append('title', 'late');
          return body;
        })(),
        400,
        'INVALID_PAYLOAD',
      ],
      [
        'a huge metadata field',
        form([['description', 'x'.repeat(70_000)]], [['a.png', PNG, 'image/png']]),
        400,
        'INVALID_PAYLOAD',
      ],
      [
        'an id in the metadata',
        form([['id', randomUUID()]], [['a.png', PNG, 'image/png']]),
        400,
        'INVALID_PAYLOAD',
      ],
      ['an unknown field', form([['folder', 'x']], [['a.png', PNG, 'image/png']]), 400, 'INVALID_PAYLOAD'],
      [
        'a file over storage.maxUploadSize',
        form([], [['big.bin', new Uint8Array(65 * 1024), 'application/octet-stream']]),
        413,
        'CONTENT_TOO_LARGE',
      ],
    ];
    for (const [name, body, status, code] of cases) {
      const answer = await send(app, 'POST', '/files', admin, body);
      assert.is(answer.status, status, `${name}: ${answer.text}`);
      assert.is(errorOf(answer.body).extensions.code, code, name);
    }
    // Fields without any file: the message says the file is missing, not that the fields came too late.
    const hugeField = form([['description', 'x'.repeat(70_000)]], [['a.png', PNG, 'image/png']]);
    const huge = await send(app, 'POST', '/files', admin, hugeField);
    assert.is(errorOf(huge.body).extensions.field, 'description', 'a field over 64 KiB is named');
    const fieldsOnly = await send(app, 'POST', '/files', admin, form([['title', 'x']]));
    assert.match(errorOf(fieldsOnly.body).message, /^The upload has no file/);
    assert.equal(await keys(storage), before);
  });

  test('form text that is not UTF-8, or holds a NUL, is refused naming its field, never stored as U+FFFD (§4a)', async (context) => {
    const { app, admin, storage } = context;
    const before = await keys(storage);
    const raw = async (method: string, path: string, parts: Buffer[]) => {
      const response = await fetch(`${app.url}${path}`, {
        method,
        headers: { Authorization: `Bearer ${admin}`, 'Content-Type': 'multipart/form-data; boundary=b' },
        body: Buffer.concat([...parts, Buffer.from('--b--\r\n')]),
      });
      return { status: response.status, body: (await response.json().catch(() => null)) as unknown };
    };
    type Bytes = string | number[] | Buffer;
    const bytes = (...parts: Bytes[]) =>
      Buffer.concat(parts.map((part) => (typeof part === 'string' ? Buffer.from(part) : Buffer.from(part))));
    /** A field part; `type` is its Content-Type header, if any. */
    const field = (name: Bytes, value: Bytes, type?: string) =>
      bytes(
        '--b\r\nContent-Disposition: form-data; name="',
        name,
        `"\r\n${type ? `Content-Type: ${type}\r\n` : ''}\r\n`,
        value,
        '\r\n',
      );
    /** A file part; `disposition` ends its Content-Disposition after `name="file"`. */
    const file = (disposition: Bytes) =>
      bytes(
        '--b\r\nContent-Disposition: form-data; name="file"; ',
        disposition,
        '\r\nContent-Type: image/png\r\n\r\n',
        [...PNG],
        '\r\n',
      );
    const png = file('filename="a.png"');
    const FF = [0xff];
    const LONE_SURROGATE = [0xed, 0xa0, 0x80];
    const cases: Array<[string, Buffer[], string | undefined]> = [
      ['a value with byte 0xFF', [field('title', ['a'.charCodeAt(0), ...FF]), png], 'title'],
      ['a value with an encoded lone surrogate', [field('title', LONE_SURROGATE), png], 'title'],
      ['a value with a NUL', [field('title', 'a\u0000b'), png], 'title'],
      ['a field name with byte 0xFF', [field([0x74, ...FF], 'x'), png], 't\ufffd'],
      [
        'a field name with an encoded lone surrogate',
        [field(LONE_SURROGATE, 'x'), png],
        '\ufffd\ufffd\ufffd',
      ],
      ['a filename with byte 0xFF', [file(bytes('filename="a', FF, '.png"'))], 'filename'],
      [
        'a filename with an encoded lone surrogate',
        [file(bytes('filename="', LONE_SURROGATE, '.png"'))],
        'filename',
      ],
      // busboy refuses a NUL in a part's header: a malformed part, named by no field.
      ['a filename with a NUL', [file(bytes('filename="a', [0], '.png"'))], undefined],
      ['a filename* that is not UTF-8', [file("filename*=UTF-8''a%FF.png")], 'filename'],
      ['a filename* with an encoded lone surrogate', [file("filename*=utf-8''%ED%A0%80.png")], 'filename'],
      [
        'a filename* in latin1 (read as such by busboy, windows-1252 too)',
        [file("filename*=iso-8859-1''%E9.png")],
        'filename',
      ],
      [
        'a filename* in a charset busboy skips the part for',
        [file("filename*=x-unknown''a.png"), png],
        'filename',
      ],
      ['a value declared UTF-8 that is not', [field('title', FF, 'text/plain; charset=utf-8'), png], 'title'],
      // "Ã©" in UTF-8: read as latin1 bytes again it would become "é".
      ['a value declared latin1', [field('title', 'Ã©', 'text/plain; charset=iso-8859-1'), png], 'title'],
      [
        'a value declared windows-1252',
        [field('title', [0x80], 'text/plain; charset=windows-1252'), png],
        'title',
      ],
      [
        'a value in a charset busboy cannot decode',
        [field('title', 'x', 'text/plain; charset=x-unknown'), png],
        'title',
      ],
      [
        'a JSON metadata field escaping a lone surrogate',
        [field('metadata', '{"a":"\\ud800"}'), png],
        'metadata.a',
      ],
      [
        'a JSON metadata field with a __proto__ key, as a JSON body may not hold',
        [field('metadata', '{"a":{"__proto__":{"polluted":true}}}'), png],
        'metadata',
      ],
    ];
    for (const [name, parts, named] of cases) {
      const answer = await raw('POST', '/files', parts);
      assert.is(answer.status, 400, `${name}: ${JSON.stringify(answer.body)}`);
      const error = errorOf(answer.body);
      assert.is(error.extensions.code, 'INVALID_PAYLOAD', name);
      assert.is(error.extensions.field, named, name);
    }
    assert.equal(await keys(storage), before);

    // UTF-8 in every place, raw and as filename*, declared or not: kept as sent, "Ã©" included.
    const created = await raw('POST', '/files', [
      // U+FFFD sent as UTF-8, with no charset declared, is text like any other.
      field('title', 'é 日本 \ufffd'),
      field('description', 'Ã© 日本', 'text/plain; charset=UTF-8'),
      field('metadata', '{"日本":"é"}'),
      file('filename="日本 é.png"'),
      // A charset inside a quoted parameter is no charset of the part: its text is read as UTF-8.
      field('title', 'é', 'text/plain; x="; charset=iso-8859-1"'),
      file("filename*=UTF-8''%E6%97%A5%E6%9C%AC%20%C3%A9.png"),
    ]);
    assert.is(created.status, 200, JSON.stringify(created.body));
    const [first, second] = created.body as FileRow[];
    assert.is(first!.title, 'é 日本 \ufffd');
    assert.is(first!.description, 'Ã© 日本');
    assert.equal(first!.metadata, { 日本: 'é' });
    assert.is(first!.filename_download, '日本 é.png');
    assert.is(second!.filename_download, '日本 é.png');
    assert.is(second!.title, 'é');

    // Replacing the bytes reads its form the same way, and a refusal keeps the row as it was.
    const refused = await raw('PATCH', `/files/${first!.id}`, [field('title', FF), png]);
    assert.is(refused.status, 400);
    assert.is(errorOf(refused.body).extensions.field, 'title');
    const replaced = await raw('PATCH', `/files/${first!.id}`, [field('title', '日本'), png]);
    assert.is(replaced.status, 200, JSON.stringify(replaced.body));
    assert.is((replaced.body as FileRow).title, '日本');
  });

  test('names that would break a header or a path are stored as given and served safely', async (context) => {
    const { app, admin } = context;
    for (const name of ['../../etc/passwd', 'a"b.png', 'evil\r\nSet-Cookie: x=1.png']) {
      const body = form(
        [
          ['title', 'public name'],
          ['filename_download', name],
        ],
        [['x.png', PNG, 'image/png']],
      );
      const created = await send(app, 'POST', '/files', admin, body);
      assert.is(created.status, 200, created.text);
      const row = created.body as FileRow;
      assert.is(row.filename_download, name);
      assert.is(row.filename_disk, `files/${row.id}`);
      const asset = await send(app, 'GET', `/assets/${row.id}?download`, admin);
      assert.is(asset.status, 200);
      assert.is(asset.headers.get('set-cookie'), null);
      assert.match(
        asset.headers.get('content-disposition')!,
        /^attachment; filename="[^"\r\n]*(\\"[^"\r\n]*)*"/,
      );
    }
  });

  test('several files in one upload: each after its own fields, all stored or none', async (context) => {
    const { app, admin, uploader, storage } = context;
    const body = new FormData();
    body.append('title', 'public one');
    body.append('file', new Blob([PNG]), 'one.png');
    body.append('title', 'public two');
    body.append('file', new Blob(['hello'], { type: 'text/plain' }), 'two.txt');
    const answer = await send(app, 'POST', '/files', admin, body);
    assert.is(answer.status, 200, answer.text);
    const rows = answer.body as FileRow[];
    assert.equal(
      rows.map((row) => [row.title, row.type]),
      [
        ['public one', 'image/png'],
        ['public two', 'text/plain'],
      ],
    );
    const before = await keys(storage);
    const second = new FormData();
    second.append('title', 'ok');
    second.append('file', new Blob([PNG]), 'one.png');
    second.append('file', new Blob([PNG]), 'untitled.png');
    const refused = await send(app, 'POST', '/files', uploader, second);
    assert.is(refused.status, 400, refused.text);
    assert.is(errorOf(refused.body).extensions.field, 'title');
    assert.equal(await keys(storage), before);
  });

  test('PATCH with a file replaces the bytes and drops the variants; two files are refused', async (context) => {
    const { app, admin, storage } = context;
    const row = await upload(context, 'public replaced');
    await storage.write(
      `variants/${row.id}/w200`,
      (async function* () {
        yield new Uint8Array([1]);
      })(),
    );
    const replaced = await send(
      app,
      'PATCH',
      `/files/${row.id}`,
      admin,
      form([['title', 'public new']], [['n.txt', Buffer.from('new bytes'), 'text/plain']]),
    );
    assert.is(replaced.status, 200, replaced.text);
    const changed = replaced.body as FileRow;
    assert.equal([changed.title, changed.type, Number(changed.filesize)], ['public new', 'text/plain', 9]);
    assert.ok(changed.modified_on);
    assert.is((await send(app, 'GET', `/assets/${row.id}`, admin)).text, 'new bytes');
    assert.not.ok((await keys(storage)).some((key) => key.startsWith(`variants/${row.id}/`)));
    const two = await send(
      app,
      'PATCH',
      `/files/${row.id}`,
      admin,
      form(
        [],
        [
          ['a', Buffer.from('a'), 'text/plain'],
          ['b', Buffer.from('b'), 'text/plain'],
        ],
      ),
    );
    assert.is(two.status, 400, two.text);
    assert.is((await send(app, 'GET', `/assets/${row.id}`, admin)).text, 'new bytes');
    assert.not.ok((await keys(storage)).some((key) => key.startsWith('tmp/')));
  });

  test('metadata by JSON: a row without bytes, then PATCH and DELETE by keys, bytes and variants gone', async (context) => {
    const { app, admin, storage } = context;
    const created = await app.request('POST', '/files', {
      token: admin,
      body: { filename_download: 'later.pdf', title: 'public later' },
    });
    assert.is(created.status, 200, created.text);
    const bare = created.body as FileRow;
    assert.is(bare.filename_disk, null);
    assert.is((await send(app, 'GET', `/assets/${bare.id}`, admin)).status, 404);
    const withId = await app.request('POST', '/files', {
      token: admin,
      body: { id: randomUUID(), filename_download: 'x' },
    });
    assert.is(withId.status, 400);
    const patched = await app.request('PATCH', `/files/${bare.id}`, {
      token: admin,
      body: { title: 'public renamed', filesize: 1, filename_disk: 'files/other' },
    });
    assert.is(patched.status, 200, patched.text);
    assert.equal(
      [(patched.body as FileRow).title, (patched.body as FileRow).filename_disk],
      ['public renamed', null],
    );
    const row = await upload(context, 'public doomed');
    await storage.write(
      `variants/${row.id}/w10`,
      (async function* () {
        yield new Uint8Array([1]);
      })(),
    );
    const gone = await app.request('DELETE', '/files', { token: admin, body: [row.id, bare.id] });
    assert.is(gone.status, 204, gone.text);
    assert.not.ok((await keys(storage)).some((key) => key.includes(row.id)));
    assert.is((await send(app, 'GET', `/files/${row.id}`, admin)).status, 404);
  });

  test('a rule about the bytes is judged once they are in; refused, they are deleted', async (context) => {
    const { app, admin, storage } = context;
    const role = await app.createRole({ name: 'Small images only' });
    const granted = await app.request('POST', '/permissions', {
      token: admin,
      body: {
        role: role.id,
        collection: 'datagate_files',
        action: 'create',
        fields: ['*'],
        validation: { _and: [{ type: { _starts_with: 'image/' } }, { filesize: { _lt: 1000 } }] },
      },
    });
    assert.is(granted.status, 200, granted.text);
    const token = (await app.login(await app.createUser({ role: role.id }))).access_token;
    const before = await keys(storage);
    const cases: Array<[string, Uint8Array, string, number]> = [
      ['a small image', PNG, 'image/png', 204],
      ['text declared as an image', Buffer.from('not an image'), 'image/png', 400],
      ['an image too large for the rule', Buffer.concat([PNG, Buffer.alloc(2000)]), 'image/png', 400],
    ];
    for (const [name, bytes, type, status] of cases) {
      const answer = await send(app, 'POST', '/files', token, form([['title', name]], [['f', bytes, type]]));
      assert.is(answer.status, status, `${name}: ${answer.text}`);
    }
    assert.is((await keys(storage)).length, before.length + 1);
    assert.not.ok((await keys(storage)).some((key) => key.startsWith('tmp/')));
  });

  test.run();
}
