import { readFileSync } from 'node:fs';
import {
  deleteFile,
  deleteFiles,
  readAssetArrayBuffer,
  readAssetBlob,
  readAssetRaw,
  readFile,
  readFiles,
  updateFile,
  updateFiles,
  updateFilesBatch,
  uploadFiles,
} from '@directus/sdk';
import sharp from 'sharp';
import * as assert from 'uvu/assert';
import { backends } from '../support/databases.ts';
import { suitePerBackend } from '../support/suite-per-backend.ts';
import { ADMIN_STATIC_TOKEN, type CargosScenario, startCargosScenario } from './cargos-scenario.ts';
import { SdkClients, sdkError } from './sdk-clients.ts';

type Context = { scenario: CargosScenario; clients: SdkClients };

const PHOTO = Buffer.concat([Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'), Buffer.alloc(300, 3)]);

/** A real photo (docs/walkthrough), for transforms. */
const BANANAS = readFileSync(new URL('../../docs/walkthrough/bananas.jpg', import.meta.url));

async function sharpSize(blob: Blob): Promise<[number | undefined, number | undefined]> {
  const { width, height } = await sharp(Buffer.from(await blob.arrayBuffer())).metadata();
  return [width, height];
}

async function bytesOf(stream: ReadableStream<Uint8Array>): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of stream as unknown as AsyncIterable<Uint8Array>) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/** docs/api.md §15 as a Directus client uses it: uploadFiles, readFiles, readAssetRaw, updateFile, deleteFile. */
for (const [target, test] of suitePerBackend<Context>(
  backends(),
  (backend) => `@directus/sdk files on ${backend}`,
)) {
  test.before(async (context) => {
    context.scenario = await startCargosScenario(target);
    context.clients = new SdkClients(context.scenario.app.url);
  });
  test.after(async ({ scenario, clients }) => {
    clients.stopAll();
    await scenario.close();
    await target.dispose();
  });

  test('uploadFiles stores a photo, readFiles lists it, readAssetRaw streams its bytes back', async ({
    clients,
  }) => {
    const admin = clients.withStaticToken(ADMIN_STATIC_TOKEN);
    const form = new FormData();
    form.append('title', 'Delivery photo');
    form.append('file', new Blob([PHOTO], { type: 'image/png' }), 'delivery.png');
    const uploaded = (await admin.request(uploadFiles(form))) as {
      id: string;
      type: string;
      filesize: unknown;
    };
    assert.is(uploaded.type, 'image/png');
    assert.is(Number(uploaded.filesize), PHOTO.length);
    const listed = await admin.request(
      readFiles({ fields: ['id', 'title'], filter: { id: { _eq: uploaded.id } } }),
    );
    assert.equal(listed, [{ id: uploaded.id, title: 'Delivery photo' }]);
    assert.equal(await bytesOf(await admin.request(readAssetRaw(uploaded.id))), PHOTO);
    const renamed = await admin.request(updateFile(uploaded.id, { title: 'Renamed' }, { fields: ['title'] }));
    assert.equal(renamed, { title: 'Renamed' });
    await admin.request(deleteFile(uploaded.id));
    await sdkError(admin.request(readAssetRaw(uploaded.id)), 404, 'NOT_FOUND');
  });

  test('an operator without file permissions is refused before anything is stored', async ({
    clients,
    scenario,
  }) => {
    const operator = clients.session();
    await operator.login({ email: scenario.operator.email, password: scenario.operator.password });
    const form = new FormData();
    form.append('file', new Blob([PHOTO], { type: 'image/png' }), 'x.png');
    await sdkError(operator.request(uploadFiles(form)), 403, 'FORBIDDEN');
    await sdkError(operator.request(readFiles()), 403, 'FORBIDDEN');
  });

  test('several files, readFile, new bytes, updateFiles, updateFilesBatch, deleteFiles', async ({
    clients,
  }) => {
    const admin = clients.withStaticToken(ADMIN_STATIC_TOKEN);
    const form = new FormData();
    form.append('title', 'First');
    form.append('file', new Blob(['one'], { type: 'text/plain' }), 'one.txt');
    form.append('file', new Blob(['two'], { type: 'text/plain' }), 'two.txt');
    const [one, two] = (await admin.request(
      uploadFiles(form, { fields: ['id', 'title', 'filename_download'] }),
    )) as unknown as Array<{ id: string; title: string | null; filename_download: string }>;
    // A field applies to the next file only (docs/api.md §15).
    assert.equal(
      [one, two].map((file) => [file!.title, file!.filename_download]),
      [
        ['First', 'one.txt'],
        [null, 'two.txt'],
      ],
    );
    assert.equal(await admin.request(readFile(one!.id, { fields: ['filesize', 'type'] })), {
      filesize: 3,
      type: 'text/plain',
    });

    const replacement = new FormData();
    replacement.append('description', 'Replaced');
    replacement.append('file', new Blob([PHOTO], { type: 'image/png' }), 'photo.png');
    const replaced = await admin.request(
      updateFile(one!.id, replacement, { fields: ['type', 'filesize', 'description', 'filename_download'] }),
    );
    // As Directus: new bytes keep the name the file is downloaded under.
    assert.equal(replaced, {
      type: 'image/png',
      filesize: PHOTO.length,
      description: 'Replaced',
      filename_download: 'one.txt',
    });
    assert.equal(await bytesOf(await admin.request(readAssetRaw(one!.id))), PHOTO);

    const byKeys = await admin.request(
      updateFiles([one!.id, two!.id], { title: 'Both' }, { fields: ['title'] }),
    );
    assert.equal(byKeys, [{ title: 'Both' }, { title: 'Both' }]);
    const batch = await admin.request(
      updateFilesBatch([{ id: two!.id, title: 'Second' }] as never, { fields: ['id', 'title'] }),
    );
    assert.equal(batch, [{ id: two!.id, title: 'Second' }]);
    assert.is(await admin.request(deleteFiles([one!.id, two!.id])), null);
    assert.equal(await admin.request(readFiles({ filter: { id: { _in: [one!.id, two!.id] } } })), []);
  });

  test('readAssetBlob and readAssetArrayBuffer with transforms; what they refuse', async ({
    clients,
    scenario,
  }) => {
    const admin = clients.withStaticToken(ADMIN_STATIC_TOKEN);
    const form = new FormData();
    form.append('file', new Blob([BANANAS], { type: 'image/jpeg' }), 'bananas.jpg');
    const { id } = (await admin.request(uploadFiles(form, { fields: ['id'] }))) as unknown as { id: string };
    const thumbnail = await admin.request(
      readAssetBlob(id, { width: 64, height: 64, fit: 'cover', format: 'webp', quality: 50 }),
    );
    assert.equal([thumbnail.type, await sharpSize(thumbnail)], ['image/webp', [64, 64]]);
    const original = await admin.request(readAssetArrayBuffer(id));
    assert.is(original.byteLength, BANANAS.length);
    const refusals: Array<[Record<string, unknown>, string]> = [
      [{ transforms: [['blur', 10]] }, 'transforms'],
      [{ key: 'not-a-preset' }, 'key'],
      [{ width: 0 }, 'width'],
      [{ fit: 'stretch', width: 10, height: 10 }, 'fit'],
    ];
    for (const [query, field] of refusals) {
      const error = await sdkError(admin.request(readAssetBlob(id, query as never)), 400, 'INVALID_QUERY');
      assert.is(error.errors[0]?.extensions.field, field, JSON.stringify(query));
    }
    const operator = clients.session();
    await operator.login({ email: scenario.operator.email, password: scenario.operator.password });
    await sdkError(operator.request(readAssetBlob(id, { width: 10 })), 403, 'FORBIDDEN');
    await admin.request(deleteFile(id));
  });

  test.run();
}
