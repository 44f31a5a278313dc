import {
  createCollection,
  createField,
  createPermission,
  deleteCollection,
  readCollection,
  readField,
  updateCollection,
  updateField,
} from '@directus/sdk';
import * as assert from 'uvu/assert';
import { backends } from '../support/databases.ts';
import { suitePerBackend } from '../support/suite-per-backend.ts';
import { ADMIN_STATIC_TOKEN, type CargosScenario, startCargosScenario } from './cargos-scenario.ts';
import { SdkClients, sdkError } from './sdk-clients.ts';

/** A name no other suite uses: database targets are shared by every suite of the process. */
const POSTS = 'sdk_posts';

type Context = { scenario: CargosScenario; clients: SdkClients };

/**
 * Schema changes as the SDK's documentation writes them, Directus's `meta` included (docs/api.md §7): the
 * presentation settings are taken and not kept, `accountability` is applied, and what datagate would not
 * do is refused.
 */
for (const [target, schema] of suitePerBackend<Context>(
  backends(),
  (backend) => `@directus/sdk schema with meta on ${backend}`,
)) {
  schema.before(async (context) => {
    context.scenario = await startCargosScenario(target);
    context.clients = new SdkClients(context.scenario.app.url);
  });
  schema.after(async ({ scenario, clients }) => {
    clients.stopAll();
    if (scenario.app.persistence.schema.current().collections.has(POSTS))
      await scenario.app.persistence.schemaEditor.dropCollection(POSTS);
    await scenario.close();
    await target.dispose();
  });

  schema('createCollection, createField, updateField and updateCollection with meta', async ({ clients }) => {
    const admin = clients.withStaticToken(ADMIN_STATIC_TOKEN);
    const created = await admin.request(
      createCollection({
        collection: POSTS,
        meta: { icon: 'article', note: 'Blog posts', accountability: 'activity' },
        schema: {},
        fields: [
          {
            field: 'id',
            type: 'integer',
            meta: { hidden: true, interface: 'input', readonly: true },
            schema: { is_primary_key: true, has_auto_increment: true },
          },
        ],
      } as never),
    );
    assert.equal((created as { meta: unknown }).meta, { accountability: 'activity', realtime_watch: false });

    await admin.request(
      createField(
        POSTS as never,
        {
          field: 'title',
          type: 'string',
          meta: { interface: 'input', note: 'The headline', required: true },
          schema: { is_nullable: false, default_value: 'Untitled' },
        } as never,
      ),
    );
    const field = await admin.request(
      updateField(POSTS, 'title', { meta: { note: 'The headline' } } as never),
    );
    assert.is(field.meta, null, 'presentation is not kept');
    assert.equal(await admin.request(readField(POSTS, 'title')), field);

    const changed = await admin.request(
      updateCollection(POSTS, { meta: { note: 'Posts', accountability: null } }),
    );
    assert.equal(changed.meta as unknown, { accountability: null, realtime_watch: false });
    assert.equal((await admin.request(readCollection(POSTS))).meta as unknown, changed.meta);

    const refused = await sdkError(
      admin.request(
        createField(POSTS as never, { field: 'pw', type: 'string', meta: { special: ['hash'] } } as never),
      ),
      400,
      'INVALID_PAYLOAD',
    );
    assert.is(refused.errors[0]?.extensions.field, 'meta.special');

    // Directus keeps a permission's fields as a comma-separated string; datagate reads it as the list.
    const permission = await admin.request(
      createPermission({ role: null, collection: POSTS, action: 'read', fields: 'id,title' } as never),
    );
    assert.equal((permission as { fields: unknown }).fields, ['id', 'title']);

    await admin.request(deleteCollection(POSTS));
  });

  schema.run();
}
