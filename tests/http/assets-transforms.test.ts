import { get as httpGet, type IncomingHttpHeaders } from 'node:http';
import sharp from 'sharp';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { AppConfig } from '../../src/adapters/config/config-schema.ts';
import { InMemoryFileStorage } from '../../src/adapters/persistence/memory/in-memory-file-storage.ts';
import { SharpImageTransformer } from '../../src/adapters/sharp/sharp-image-transformer.ts';
import type { ImageTransform, Size } from '../../src/application/files/image-transform.ts';
import type { FileStorage } from '../../src/application/ports/file-storage.ts';
import type { ImageTransformer } from '../../src/application/ports/image-transformer.ts';
import { TYPES } from '../../src/container.ts';
import { declaredPng } from '../support/declared-png.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';

/** sharp, counting the transforms it starts; `hold()` keeps them waiting until `release()`. */
class GatedImageTransformer implements ImageTransformer {
  started = 0;
  private gate: Promise<void> = Promise.resolve();
  private open: () => void = () => {};

  constructor(private readonly inner: ImageTransformer) {}

  get headerBytes(): number {
    return this.inner.headerBytes;
  }

  dimensions(head: Uint8Array): Promise<Size | undefined> {
    return this.inner.dimensions(head);
  }

  hold(): void {
    this.gate = new Promise((resolve) => {
      this.open = resolve;
    });
  }

  release(): void {
    this.open();
  }

  async *transform(source: AsyncIterable<Uint8Array>, transform: ImageTransform): AsyncIterable<Uint8Array> {
    this.started += 1;
    await this.gate;
    yield* this.inner.transform(source, transform);
  }
}

type FileRow = { id: string; type: string; checksum: string; width: number | null; height: number | null };
type Answer = { status: number; headers: IncomingHttpHeaders; bytes: Buffer; json: unknown };

const storage = new InMemoryFileStorage();
let transformer!: GatedImageTransformer;
const app: TestApp = await startTestApp({
  env: {
    // Room for the queue test's requests in flight at once.
    PER_CALLER_CONCURRENCY: '16',
    STORAGE_TRANSFORMS_CONCURRENCY: '1',
    STORAGE_TRANSFORMS_QUEUE: '1',
    STORAGE_TRANSFORMS_PRESETS: '{"thumbnail":{"width":200,"format":"webp"}}',
  },
  rebind: (container) => {
    container.rebind<FileStorage>(TYPES.FileStorage).toConstantValue(storage);
    const { transforms } = container.get<AppConfig>(TYPES.Config).storage;
    transformer = new GatedImageTransformer(new SharpImageTransformer(transforms));
    container.rebind<ImageTransformer>(TYPES.ImageTransformer).toConstantValue(transformer);
  },
});
const admin = (await app.login(await app.seedAdmin())).access_token;
const readers = await app.createRole({ name: 'Readers of public files' });
const granted = await app.request('POST', '/permissions', {
  token: admin,
  body: {
    role: readers.id,
    collection: 'datagate_files',
    action: 'read',
    permissions: { title: { _starts_with: 'public' } },
    fields: ['id', 'title'],
  },
});
assert.is(granted.status, 200, granted.text);
const reader = (await app.login(await app.createUser({ role: readers.id }))).access_token;

/** A 3000 × 2000 photo: teal, with a red square in a corner. */
const PHOTO = await sharp({ create: { width: 3000, height: 2000, channels: 3, background: 'teal' } })
  .composite([
    { input: { create: { width: 100, height: 100, channels: 3, background: 'red' } }, left: 0, top: 0 },
  ])
  .jpeg()
  .toBuffer();

function picture(width: number, height: number) {
  return sharp({ create: { width, height, channels: 3, background: 'orange' } });
}

async function send(method: string, path: string, token: string, body?: FormData): Promise<Answer> {
  const response = await fetch(`${app.url}${path}`, {
    method,
    headers: { Authorization: `Bearer ${token}` },
    ...(body ? { body } : {}),
  });
  const bytes = Buffer.from(await response.arrayBuffer());
  return {
    status: response.status,
    headers: Object.fromEntries(response.headers),
    bytes,
    json: parsed(bytes),
  };
}

/** node:http, not fetch: fetch adds `Cache-Control: no-cache` to a conditional request. */
function get(path: string, headers: Record<string, string> = {}, token = admin): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = httpGet(
      `${app.url}${path}`,
      { headers: { Authorization: `Bearer ${token}`, ...headers } },
      async (response) => {
        const chunks: Buffer[] = [];
        for await (const chunk of response) chunks.push(chunk as Buffer);
        const bytes = Buffer.concat(chunks);
        resolve({ status: response.statusCode!, headers: response.headers, bytes, json: parsed(bytes) });
      },
    );
    request.on('error', reject);
  });
}

function parsed(bytes: Buffer): unknown {
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch {
    return null;
  }
}

function form(title: string, name: string, bytes: Uint8Array, type: string): FormData {
  const body = new FormData();
  body.append('title', title);
  body.append('file', new Blob([bytes], { type }), name);
  return body;
}

async function upload(title: string, name: string, bytes: Uint8Array, type = 'image/jpeg'): Promise<FileRow> {
  const answer = await send('POST', '/files', admin, form(title, name, bytes, type));
  assert.is(answer.status, 200, answer.bytes.toString());
  return answer.json as FileRow;
}

const errorOf = (answer: Answer) =>
  (answer.json as { errors: Array<{ extensions: Record<string, unknown> }> }).errors[0]!.extensions;

async function keysUnder(prefix: string): Promise<string[]> {
  const found: string[] = [];
  for await (const object of storage.list(prefix)) found.push(object.key);
  return found;
}

const photo = await upload('public photo', 'photo.jpg', PHOTO);

test('an upload records an image’s width and height, read from its header', async () => {
  assert.equal([photo.type, photo.width, photo.height], ['image/jpeg', 3000, 2000]);
  const turned = await picture(40, 20).jpeg().withMetadata({ orientation: 6 }).toBuffer();
  const shown = await upload('public turned', 'turned.jpg', turned);
  assert.equal([shown.width, shown.height], [20, 40], 'as displayed: EXIF orientation applied');
  const png = await upload('public png', 'p.png', await picture(64, 48).png().toBuffer(), 'image/png');
  assert.equal([png.type, png.width, png.height], ['image/png', 64, 48]);
});

test('a file that is not an image, or whose header cannot be read, is stored with no size', async () => {
  const text = await upload('public text', 'notes.txt', Buffer.from('not an image'), 'text/plain');
  assert.equal([text.width, text.height], [null, null]);
  // A JPEG's signature, then no header at all.
  const broken = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(64, 1)]);
  const row = await upload('public broken', 'broken.jpg', broken);
  assert.equal([row.type, row.width, row.height], ['image/jpeg', null, null]);
});

test('a 200-pixel WebP thumbnail: made once, stored, served with its own ETag and the safe headers', async () => {
  const before = transformer.started;
  const answer = await get(`/assets/${photo.id}?width=200&format=webp`);
  assert.is(answer.status, 200, answer.bytes.toString());
  const thumbnail = await sharp(answer.bytes).metadata();
  assert.equal([thumbnail.format, thumbnail.width, thumbnail.height], ['webp', 200, 133]);
  assert.is(answer.headers['content-type'], 'image/webp');
  assert.is(answer.headers['content-length'], String(answer.bytes.length));
  assert.is(answer.headers['content-security-policy'], 'sandbox');
  assert.is(answer.headers['x-content-type-options'], 'nosniff');
  assert.is(answer.headers['content-disposition'], 'inline; filename="photo.webp"');
  assert.is(answer.headers.vary, undefined);
  const etag = answer.headers.etag!;
  assert.match(etag, /^"[A-Za-z0-9_-]+"$/);
  assert.is.not(etag, `"${photo.checksum}"`);
  assert.equal(await keysUnder(`variants/${photo.id}/`), [`variants/${photo.id}/${etag.slice(1, -1)}`]);

  const again = await get(`/assets/${photo.id}?width=200&format=webp`);
  assert.equal([again.headers.etag, again.bytes], [etag, answer.bytes]);
  assert.is((await get(`/assets/${photo.id}?width=200&format=webp`, { 'If-None-Match': etag })).status, 304);
  const part = await get(`/assets/${photo.id}?width=200&format=webp`, { Range: 'bytes=0-9' });
  assert.is(part.status, 206);
  assert.is(part.headers['content-range'], `bytes 0-9/${answer.bytes.length}`);
  assert.equal(part.bytes, answer.bytes.subarray(0, 10));
  const head = await fetch(`${app.url}/assets/${photo.id}?width=200&format=webp`, {
    method: 'HEAD',
    headers: { Authorization: `Bearer ${admin}` },
  });
  assert.equal([head.status, head.headers.get('content-length')], [200, String(answer.bytes.length)]);
  assert.is(transformer.started, before + 1, 'made once, then read from the store');

  const original = await get(`/assets/${photo.id}`);
  assert.equal([original.headers['content-type'], original.bytes], ['image/jpeg', PHOTO]);
});

test('a variant downloads under the name of its format; a name that already says it is kept as written', async () => {
  const disposition = async (query: string) =>
    (await get(`/assets/${photo.id}?${query}`)).headers['content-disposition'];
  // photo.jpg, kept as a JPEG: it was renamed photo.jpeg.
  assert.is(await disposition('width=20'), 'inline; filename="photo.jpg"');
  assert.is(await disposition('width=20&format=jpeg'), 'inline; filename="photo.jpg"');
  assert.is(await disposition('width=20&format=png'), 'inline; filename="photo.png"');
  assert.is(await disposition('width=20&format=tiff'), 'attachment; filename="photo.tiff"');
});

test('a preset names the same variant as its parameters', async () => {
  const preset = await get(`/assets/${photo.id}?key=thumbnail`);
  const spelled = await get(`/assets/${photo.id}?width=200&format=webp`);
  assert.is(preset.status, 200);
  assert.is(preset.headers.etag, spelled.headers.etag);
});

test('format=auto follows Accept and says so in Vary', async () => {
  const cases: Array<[string | undefined, string]> = [
    ['image/avif,image/webp,*/*', 'image/avif'],
    ['image/webp,*/*', 'image/webp'],
    [undefined, 'image/jpeg'],
  ];
  for (const [accept, type] of cases) {
    const answer = await get(`/assets/${photo.id}?width=64&format=auto`, accept ? { Accept: accept } : {});
    assert.is(answer.status, 200);
    assert.is(answer.headers['content-type'], type, String(accept));
    assert.match(String(answer.headers.vary), /Accept/);
    assert.is((await sharp(answer.bytes).metadata()).width, 64);
  }
});

test('bad transform parameters are 400 INVALID_QUERY naming the parameter', async () => {
  const cases: Array<[string, string]> = [
    ['width=0', 'width'],
    ['width=wide', 'width'],
    ['height=-3', 'height'],
    ['fit=fill&width=10&height=10', 'fit'],
    ['format=bmp', 'format'],
    ['quality=101&format=webp', 'quality'],
    ['key=unknown', 'key'],
    ['key=thumbnail&width=10', 'key'],
    ['transforms=[["blur",3]]', 'transforms'],
    // One value each: a list or an object is refused, never taken for no transform (the original).
    ['width[]=10', 'width'],
    ['width=10&width=20', 'width'],
    ['format[a]=webp', 'format'],
    ['key[]=thumbnail', 'key'],
    ['download[]', 'download'],
    ['download&download', 'download'],
  ];
  for (const [query, field] of cases) {
    const answer = await get(`/assets/${photo.id}?${query}`);
    assert.is(answer.status, 400, query);
    assert.is(errorOf(answer).code, 'INVALID_QUERY', query);
    assert.is(errorOf(answer).field, field, query);
  }
});

test('a decompression bomb, or a variant over maxDimension, is 400 IMAGE_TOO_LARGE with no transform', async () => {
  const bomb = await upload('public bomb', 'bomb.png', declaredPng(50_000, 50_000, 64 * 1024), 'image/png');
  assert.equal([bomb.width, bomb.height], [50_000, 50_000]);
  const before = transformer.started;
  const refused = await get(`/assets/${bomb.id}?width=200`);
  assert.is(refused.status, 400);
  assert.is(errorOf(refused).reason, 'IMAGE_TOO_LARGE');
  assert.is(transformer.started, before, 'refused from the row, before any transform');
  // 5000 pixels high keeps the aspect ratio: 7500 wide, over the 6000 of maxDimension.
  const wide = await get(`/assets/${photo.id}?height=5000`);
  assert.equal([wide.status, errorOf(wide).reason, errorOf(wide).field], [400, 'IMAGE_TOO_LARGE', 'height']);
});

test('a file that is not a transformable image is 400 UNSUPPORTED_IMAGE; its original is still served', async () => {
  const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"></svg>');
  for (const [name, bytes, type] of [
    ['notes.txt', Buffer.from('plain words'), 'text/plain'],
    ['drawing.svg', svg, 'image/svg+xml'],
  ] as const) {
    const row = await upload(`public ${name}`, name, bytes, type);
    const refused = await get(`/assets/${row.id}?width=10`);
    assert.is(refused.status, 400, name);
    assert.equal([errorOf(refused).code, errorOf(refused).reason], ['INVALID_QUERY', 'UNSUPPORTED_IMAGE']);
    assert.is((await get(`/assets/${row.id}`)).status, 200);
  }
});

test('a hidden file with transform parameters is the 404 of a missing one, with no image work', async () => {
  const hidden = await upload('private photo', 'private.jpg', PHOTO);
  const before = transformer.started;
  const answers = await Promise.all(
    [hidden.id, '00000000-0000-4000-8000-000000000000'].map((id) =>
      get(`/assets/${id}?width=200&format=webp`, {}, reader),
    ),
  );
  for (const answer of answers) assert.is(answer.status, 404);
  const [first, second] = answers.map((answer) => answer.bytes.toString().replace(/"[0-9a-f-]{36}"/g, ''));
  assert.is(first, second);
  assert.is((await get(`/assets/${hidden.id}?width=0`, {}, reader)).status, 404, 'not even parsed');
  assert.is(transformer.started, before);
  assert.equal(await keysUnder(`variants/${hidden.id}/`), []);
  assert.is((await get(`/assets/${photo.id}?width=200&format=webp`, {}, reader)).status, 200);
});

test('a full transform queue is 503 TRANSFORMS_BUSY with Retry-After', async () => {
  const before = transformer.started;
  transformer.hold();
  try {
    const running = get(`/assets/${photo.id}?width=31`);
    while (transformer.started === before) await new Promise((resolve) => setImmediate(resolve));
    // One slot runs, one place waits: of three more requests for other variants, one waits and two are
    // refused at once.
    const settled: Answer[] = [];
    const more = [32, 33, 34].map((width) =>
      get(`/assets/${photo.id}?width=${width}`).then((answer) => {
        settled.push(answer);
        return answer;
      }),
    );
    while (settled.length < 2) await new Promise((resolve) => setTimeout(resolve, 10));
    for (const answer of settled) {
      assert.is(answer.status, 503);
      assert.is(errorOf(answer).code, 'SERVICE_UNAVAILABLE');
      assert.is(errorOf(answer).reason, 'TRANSFORMS_BUSY');
      assert.ok(Number(answer.headers['retry-after']) >= 1);
    }
    transformer.release();
    const statuses = (await Promise.all([running, ...more])).map((answer) => answer.status);
    assert.equal(statuses.sort(), [200, 200, 503, 503]);
  } finally {
    transformer.release();
  }
});

test('new bytes for a file get new variants, and the old ones are deleted; so does deleting the file', async () => {
  const row = await upload('public replaced', 'replaced.jpg', PHOTO);
  const old = await get(`/assets/${row.id}?width=200&format=webp`);
  const replaced = await send(
    'PATCH',
    `/files/${row.id}`,
    admin,
    form('public replaced', 'square.png', await picture(400, 400).png().toBuffer(), 'image/png'),
  );
  assert.is(replaced.status, 200, replaced.bytes.toString());
  const updated = replaced.json as FileRow;
  assert.equal([updated.type, updated.width, updated.height], ['image/png', 400, 400]);
  assert.equal(await keysUnder(`variants/${row.id}/`), [], 'the old variants are gone');

  const fresh = await get(`/assets/${row.id}?width=200&format=webp`);
  assert.is(fresh.status, 200);
  assert.is.not(fresh.headers.etag, old.headers.etag);
  const size = await sharp(fresh.bytes).metadata();
  assert.equal([size.width, size.height], [200, 200]);

  assert.is((await send('DELETE', `/files/${row.id}`, admin)).status, 204);
  assert.equal(await keysUnder(`variants/${row.id}/`), []);
  assert.equal(await keysUnder(`files/${row.id}`), []);
});

test.after(() => app.close());

test.run();
