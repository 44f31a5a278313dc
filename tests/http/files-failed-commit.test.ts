import * as assert from 'uvu/assert';
import { InMemoryFileStorage } from '../../src/adapters/persistence/memory/in-memory-file-storage.ts';
import type { FileStorage } from '../../src/application/ports/file-storage.ts';
import type { ItemStore } from '../../src/application/ports/item-store.ts';
import { TYPES } from '../../src/container.ts';
import { backends, borrowed } from '../support/databases.ts';
import { suitePerBackend } from '../support/suite-per-backend.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';

type Context = { app: TestApp; storage: InMemoryFileStorage; admin: string; failing: { on: boolean } };

/** The item store, except that while `failing.on` every transaction fails after its work, and rolls back. */
function failingCommits(items: ItemStore, failing: { on: boolean }): ItemStore {
  return Object.assign(Object.create(items) as ItemStore, {
    write: <T>(work: Parameters<ItemStore['write']>[0], author?: Parameters<ItemStore['write']>[1]) =>
      items.write(async (writer) => {
        const done = (await work(writer)) as T;
        if (failing.on) throw new Error('the commit failed');
        return done;
      }, author),
  });
}

for (const [target, test] of suitePerBackend<Context>(
  backends(),
  (backend) => `a failed commit on ${backend}`,
)) {
  test.before(async (context) => {
    const persistence = borrowed(await target.fresh());
    context.storage = new InMemoryFileStorage();
    context.failing = { on: false };
    context.app = await startTestApp({
      persistence,
      rebind: (container) => {
        container.rebind<FileStorage>(TYPES.FileStorage).toConstantValue(context.storage);
        container
          .rebind<ItemStore>(TYPES.ItemStore)
          .toConstantValue(failingCommits(persistence.items, context.failing));
      },
    });
    context.admin = (await context.app.login(await context.app.seedAdmin())).access_token;
  });
  test.after(async ({ app }) => {
    await app.close();
    await target.dispose();
  });

  test('an upload whose rows fail to commit leaves no row and deletes its bytes', async ({
    app,
    admin,
    storage,
    failing,
  }) => {
    const body = new FormData();
    body.append('file', new Blob(['one']), 'one.txt');
    body.append('file', new Blob(['two']), 'two.txt');
    failing.on = true;
    const answer = await fetch(`${app.url}/files`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${admin}` },
      body,
    });
    failing.on = false;
    assert.is(answer.status, 500);
    const keys: string[] = [];
    for await (const object of storage.list('')) keys.push(object.key);
    assert.equal(keys, []);
    assert.equal((await app.request('GET', '/files', { token: admin })).body, []);
  });

  test.run();
}
