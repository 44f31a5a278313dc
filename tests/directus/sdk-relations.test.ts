import {
  createCollection,
  createField,
  createRelation,
  deleteRelation,
  readRelation,
  readRelationByCollection,
  readRelations,
  updateRelation,
} from '@directus/sdk';
import * as assert from 'uvu/assert';
import { backends } from '../support/databases.ts';
import { suitePerBackend } from '../support/suite-per-backend.ts';
import { ADMIN_STATIC_TOKEN, type CargosScenario, startCargosScenario } from './cargos-scenario.ts';
import { SdkClients, sdkError } from './sdk-clients.ts';

/** A name no other suite uses: database targets are shared by every suite of the process. */
const SHIPMENTS = 'sdk_shipments';

type Context = { scenario: CargosScenario; clients: SdkClients };

/** Drops what the suite made; `cargos` first, since its foreign key refers to the other. */
async function dropMade(scenario: CargosScenario) {
  const { collections } = await scenario.app.persistence.schema.refresh();
  if (collections.get('cargos')?.fields.some((field) => field.name === 'shipment'))
    await scenario.app.persistence.schemaEditor.dropField('cargos', 'shipment');
  if (collections.has(SHIPMENTS)) await scenario.app.persistence.schemaEditor.dropCollection(SHIPMENTS);
}

for (const [target, relations] of suitePerBackend<Context>(
  backends(),
  (backend) => `@directus/sdk relations on ${backend}`,
)) {
  relations.before(async (context) => {
    context.scenario = await startCargosScenario(target);
    context.clients = new SdkClients(context.scenario.app.url);
    await dropMade(context.scenario);
  });
  relations.after(async ({ scenario, clients }) => {
    clients.stopAll();
    await dropMade(scenario);
    await scenario.close();
    await target.dispose();
  });

  relations(
    'an admin creates, reads, changes and deletes a relation through the SDK',
    async ({ clients }) => {
      const admin = clients.withStaticToken(ADMIN_STATIC_TOKEN);
      await admin.request(
        createCollection({
          collection: SHIPMENTS,
          fields: [
            { field: 'id', type: 'integer', schema: { is_primary_key: true } },
            { field: 'number', type: 'string' },
          ],
        } as never),
      );
      await admin.request(createField('cargos', { field: 'shipment', type: 'integer' } as never));

      const created = await admin.request(
        createRelation({
          collection: 'cargos',
          field: 'shipment',
          related_collection: SHIPMENTS,
          schema: { on_delete: 'SET NULL' },
          meta: { one_field: null, sort_field: null, junction_field: null },
        } as never),
      );
      assert.is(created.related_collection, SHIPMENTS);
      assert.is(created.schema?.on_delete, 'SET NULL');
      assert.is(created.meta?.one_field, 'cargos');

      const all = await admin.request(readRelations());
      const ours = all.filter((relation) => relation.collection === 'cargos');
      assert.equal(
        ours.map((relation) => [
          relation.field,
          relation.related_collection,
          relation.schema?.foreign_key_column,
        ]),
        [['shipment', SHIPMENTS, 'id']],
      );
      const ofCargos = (await admin.request(readRelationByCollection('cargos'))) as unknown as unknown[];
      assert.equal(ofCargos, ours);
      assert.equal(await admin.request(readRelation('cargos', 'shipment')), created);

      const changed = await admin.request(
        updateRelation('cargos', 'shipment', {
          schema: { on_delete: 'CASCADE' },
          meta: { one_field: 'freight' },
        } as never),
      );
      assert.is(changed.schema?.on_delete, 'CASCADE');
      assert.is(changed.meta?.one_field, 'freight');

      await admin.request(deleteRelation('cargos', 'shipment'));
      await sdkError(admin.request(readRelation('cargos', 'shipment')), 404, 'NOT_FOUND');
    },
  );

  relations('an operator sees no relation through a field it may not read', async ({ scenario, clients }) => {
    const admin = clients.withStaticToken(ADMIN_STATIC_TOKEN);
    await admin.request(
      createRelation({ collection: 'cargos', field: 'shipment', related_collection: SHIPMENTS } as never),
    );
    const operator = clients.session();
    await operator.login({ email: scenario.operator.email, password: scenario.operator.password });
    const visible = await operator.request(readRelations());
    assert.equal(
      visible.filter((relation) => relation.collection === 'cargos'),
      [],
    );
    await sdkError(operator.request(readRelation('cargos', 'shipment')), 403, 'FORBIDDEN');
    await sdkError(operator.request(deleteRelation('cargos', 'shipment')), 403, 'FORBIDDEN');
  });

  relations.run();
}
