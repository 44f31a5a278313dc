import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { InMemorySchema } from '../../src/adapters/persistence/memory/in-memory-schema.ts';
import type { CollectionSchema } from '../../src/domain/schema/collection-schema.ts';
import { field } from '../support/cargos-schema.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';

type Context = { app: TestApp; admin: string };

const related = suite<Context>(
  'the OpenAPI document names the collection a foreign key points at, to callers who may read it',
);

const shipments: CollectionSchema = {
  name: 'shipments',
  primaryKey: 'id',
  fields: [
    field('id', 'uuid', 'uuid', { nullable: false, isPrimaryKey: true, isUnique: true }),
    field('number', 'string', 'character varying(16)', { maxLength: 16, isUnique: true }),
  ],
};

const parcels: CollectionSchema = {
  name: 'parcels',
  primaryKey: 'id',
  fields: [
    field('id', 'uuid', 'uuid', { nullable: false, isPrimaryKey: true, isUnique: true }),
    field('label', 'text', 'text'),
    field('shipment', 'uuid', 'uuid'),
    field('shipment_number', 'string', 'character varying(16)', { maxLength: 16 }),
    field('photo', 'uuid', 'uuid'),
  ],
};

type Property = { 'x-related-collection'?: string; 'x-related-field'?: string; description?: string };
type Document = { components: { schemas: Record<string, { properties?: Record<string, Property> }> } };

related.before(async (context) => {
  const app = await startTestApp();
  const schema = app.persistence.schema as InMemorySchema;
  schema.registerCollection(shipments);
  schema.registerCollection(parcels);
  const { access_token: admin } = await app.login(await app.seedAdmin());
  const relations = [
    { collection: 'parcels', field: 'shipment', related_collection: 'shipments' },
    {
      collection: 'parcels',
      field: 'shipment_number',
      related_collection: 'shipments',
      schema: { foreign_key_column: 'number' },
    },
    { collection: 'parcels', field: 'photo', related_collection: 'datagate_files' },
  ];
  for (const body of relations) {
    const created = await app.request('POST', '/relations', { token: admin, body });
    assert.is(created.status, 200, created.text);
  }
  context.app = app;
  context.admin = admin;
});

related.after(async ({ app }) => {
  await app.close();
});

async function itemProperties(app: TestApp, token: string): Promise<Record<string, Property>> {
  const answer = await app.request('GET', '/server/specs/oas', { token });
  assert.is(answer.status, 200, answer.text);
  const properties = (answer.body as Document).components.schemas['parcels.Item']?.properties;
  assert.ok(properties, 'parcels.Item is in the document');
  return properties;
}

const relatedOf = (property: Property | undefined) => ({
  collection: property?.['x-related-collection'],
  field: property?.['x-related-field'],
});

related(
  'an admin sees every foreign key with the collection and field it points at',
  async ({ app, admin }) => {
    const properties = await itemProperties(app, admin);
    assert.equal(relatedOf(properties.shipment), { collection: 'shipments', field: 'id' });
    assert.equal(relatedOf(properties.shipment_number), { collection: 'shipments', field: 'number' });
    assert.equal(relatedOf(properties.photo), { collection: 'datagate_files', field: 'id' });
    assert.equal(relatedOf(properties.label), { collection: undefined, field: undefined });
    assert.equal(relatedOf(properties.id), { collection: undefined, field: undefined });
  },
);

related('a caller who may not read the related collection is told nothing of it', async ({ app, admin }) => {
  const role = await app.createRole({ name: 'Parcel readers' });
  const grant = async (collection: string) => {
    const answer = await app.request('POST', '/permissions', {
      token: admin,
      body: { role: role.id, collection, action: 'read', fields: ['*'] },
    });
    assert.is(answer.status, 200, answer.text);
  };
  await grant('parcels');
  const { access_token: reader } = await app.login(await app.createUser({ role: role.id }));

  const before = await itemProperties(app, reader);
  for (const name of ['shipment', 'shipment_number', 'photo']) {
    assert.ok(before[name], `${name} is readable`);
    assert.equal(relatedOf(before[name]), { collection: undefined, field: undefined }, name);
  }
  assert.not.match(JSON.stringify(before), /shipments|datagate_files/);

  await grant('shipments');
  const withShipments = await itemProperties(app, reader);
  assert.equal(relatedOf(withShipments.shipment), { collection: 'shipments', field: 'id' });
  assert.equal(relatedOf(withShipments.photo), { collection: undefined, field: undefined });

  await grant('datagate_files');
  const withFiles = await itemProperties(app, reader);
  assert.equal(relatedOf(withFiles.photo), { collection: 'datagate_files', field: 'id' });
});

related('the field keeps its type and description beside the names', async ({ app, admin }) => {
  const properties = await itemProperties(app, admin);
  const shipment = properties.shipment as Property & { anyOf?: unknown[] };
  assert.ok(shipment.anyOf, 'still a nullable uuid');
  assert.match(JSON.stringify(shipment.anyOf), /"format":"uuid"/);
});

related.run();
