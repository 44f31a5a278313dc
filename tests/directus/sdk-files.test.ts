import { deleteFile, readAssetRaw, readFiles, updateFile, uploadFiles } from '@directus/sdk';
import * as assert from 'uvu/assert';
import { backends } from '../support/databases.ts';
import { suitePerBackend } from '../support/suite-per-backend.ts';
import { ADMIN_STATIC_TOKEN, type CargosScenario, startCargosScenario } from './cargos-scenario.ts';
import { SdkClients, sdkError } from './sdk-clients.ts';

type Context = { scenario: CargosScenario; clients: SdkClients };

const PHOTO = Buffer.concat([Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'), Buffer.alloc(300, 3)]);

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

  test.run();
}
