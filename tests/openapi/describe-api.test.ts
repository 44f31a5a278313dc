import { randomUUID } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { itemEventsApi } from '../../src/adapters/http/openapi/item-event-operations.ts';
import { itemsApi } from '../../src/adapters/http/openapi/item-operations.ts';
import { createInMemoryPersistence } from '../../src/adapters/persistence/memory/in-memory-persistence.ts';
import type { InMemorySchema } from '../../src/adapters/persistence/memory/in-memory-schema.ts';
import { ReadRules } from '../../src/application/items/read-rules.ts';
import { WriteRules } from '../../src/application/items/write-rules.ts';
import {
  type ApiDescription,
  DescribeApiHandler,
  type DescribedCollection,
} from '../../src/application/server/describe-api.ts';
import type { Accountability } from '../../src/domain/accountability.ts';
import { PUBLIC_ACCOUNTABILITY, SYSTEM_ACCOUNTABILITY } from '../../src/domain/accountability.ts';
import { Permission, type PermissionProps } from '../../src/domain/permissions/permission.ts';
import type { CollectionSchema } from '../../src/domain/schema/collection-schema.ts';
import { cargosSchema, field } from '../support/cargos-schema.ts';
import { FixedClock } from '../support/fakes/fixed-clock.ts';

const ROLE = '0190a1b2-0000-7000-8000-0000000000f1';
const member: Accountability = {
  user: '0190a1b2-0000-7000-8000-0000000000aa',
  role: ROLE,
  admin: false,
  session: null,
};

const labels: CollectionSchema = {
  name: 'labels',
  primaryKey: 'code',
  fields: [
    field('code', 'string', 'character varying(8)', { nullable: false, isPrimaryKey: true, maxLength: 8 }),
    field('text', 'text', 'text', { nullable: false }),
    field('owner', 'text', 'text', { nullable: false }),
  ],
};

type Grant = Pick<PermissionProps, 'collection' | 'action'> & Partial<PermissionProps>;

async function describe(caller: Accountability, grants: Grant[]): Promise<ApiDescription> {
  const persistence = createInMemoryPersistence();
  const schema = persistence.schema as InMemorySchema;
  schema.registerCollection(cargosSchema);
  schema.registerCollection(labels);
  for (const grant of grants) {
    await persistence.permissions.save(
      new Permission({
        id: randomUUID(),
        role: ROLE,
        permissions: null,
        validation: null,
        presets: null,
        fields: ['*'],
        ...grant,
      }),
    );
  }
  const handler = new DescribeApiHandler(
    persistence.schema,
    new ReadRules(persistence.permissions),
    new WriteRules(persistence.permissions),
    new FixedClock(),
    {
      version: '0.0.0',
      license: 'MIT',
      limits: { limitDefault: 100, limitMax: 1000 },
      batchMax: 1000,
      realtime: true,
    },
  );
  return handler.execute(caller);
}

const collection = (description: ApiDescription, name: string): DescribedCollection => {
  const found = description.collections.find((candidate) => candidate.name === name);
  if (!found) throw new Error(`${name} is not described`);
  return found;
};
const fieldOf = (described: DescribedCollection, name: string) =>
  described.fields.find((f) => f.name === name);

test('admins may do everything on every collection, in name order', async () => {
  const description = await describe(SYSTEM_ACCOUNTABILITY, []);
  assert.equal(description.caller, { user: false, admin: true });
  assert.equal(
    description.collections.map((described) => described.name),
    ['cargos', 'labels'],
  );
  for (const described of description.collections) {
    assert.equal(described.actions, { read: true, create: true, update: true, delete: true });
    assert.is(described.fields.length, (described.name === 'cargos' ? cargosSchema : labels).fields.length);
  }
});

test('server-set columns and types the API does not know are readable, never writable', async () => {
  const cargos = collection(await describe(SYSTEM_ACCOUNTABILITY, []), 'cargos');
  for (const name of ['date_created', 'date_updated', 'user_created', 'tags']) {
    const described = fieldOf(cargos, name)!;
    assert.ok(described.read, name);
    assert.not.ok(described.create || described.update, name);
  }
  assert.ok(fieldOf(cargos, 'date_created')!.setByServer);
});

test('a field shown on some rows only is marked so, and reads as nullable', async () => {
  const description = await describe(member, [
    { collection: 'labels', action: 'read', fields: ['code', 'text'] },
    {
      collection: 'labels',
      action: 'read',
      permissions: { owner: { _eq: '$CURRENT_USER' } },
      fields: ['owner'],
    },
  ]);
  const labelsDescribed = collection(description, 'labels');
  assert.not.ok(fieldOf(labelsDescribed, 'text')!.readOnSomeRowsOnly);
  assert.ok(fieldOf(labelsDescribed, 'owner')!.readOnSomeRowsOnly);
  const item = itemsApi({ description, profile: 'plain' }).schemas!['labels.Item']!;
  assert.ok(item.safeParse({ owner: null }).success, 'owner may read as null');
  assert.not.ok(item.safeParse({ text: null }).success, 'text never does');
});

test('required on create: only NOT NULL columns that no default, generated key or preset fills', async () => {
  const description = await describe(member, [
    { collection: 'labels', action: 'create', presets: { owner: '$CURRENT_USER' } },
    { collection: 'cargos', action: 'create', fields: ['description'] },
  ]);
  const required = (name: string) =>
    collection(description, name)
      .fields.filter((described) => described.requiredOnCreate)
      .map((described) => described.name);
  assert.equal(required('labels'), ['code', 'text']);
  assert.equal(required('cargos'), [], 'a uuid key is generated, is_deleted has a default');
  assert.equal(
    collection(description, 'cargos').fields.map((described) => described.name),
    ['description'],
  );
});

test('an update may always send the key back, even when its fields do not list it', async () => {
  const labelsDescribed = collection(
    await describe(member, [
      { collection: 'labels', action: 'read', fields: ['code'] },
      { collection: 'labels', action: 'update', fields: ['text'] },
    ]),
    'labels',
  );
  assert.equal(labelsDescribed.actions, { read: true, create: false, update: true, delete: false });
  assert.equal(
    labelsDescribed.fields.map((described) => [described.name, described.update]),
    [
      ['code', true],
      ['text', true],
    ],
  );
});

test('without a read permission, updates and deletes are offered in no form: they find their rows as a read does', async () => {
  const description = await describe(member, [
    { collection: 'labels', action: 'create', fields: ['*'] },
    { collection: 'labels', action: 'update', fields: ['*'] },
    { collection: 'labels', action: 'delete' },
  ]);
  const labelsDescribed = collection(description, 'labels');
  assert.equal(labelsDescribed.actions, { read: false, create: true, update: false, delete: false });
  assert.ok(labelsDescribed.fields.every((described) => !described.update));
  const items = itemsApi({ description, profile: 'plain' });
  assert.equal(
    items.operations!.map((operation) => `${operation.method} ${operation.path}`),
    ['post /items/labels'],
  );
  const updateOnly = await describe(member, [{ collection: 'labels', action: 'update', fields: ['*'] }]);
  assert.equal(
    updateOnly.collections,
    [],
    'a role that may only update is offered nothing of the collection',
  );
});

test('a reader who may not filter on the key is offered nothing that names rows by key, nor the change stream', async () => {
  const description = await describe(member, [
    { collection: 'labels', action: 'read', fields: ['text'] },
    { collection: 'labels', action: 'update', fields: ['text'] },
    { collection: 'labels', action: 'delete' },
  ]);
  const labelsDescribed = collection(description, 'labels');
  assert.ok(labelsDescribed.keyHidden);
  assert.equal(
    labelsDescribed.fields.map((described) => [described.name, described.update]),
    [['text', true]],
  );
  const items = itemsApi({ description, profile: 'plain' });
  assert.equal(
    items.operations!.map((operation) => `${operation.method} ${operation.path}`),
    ['get /items/labels', 'patch /items/labels', 'delete /items/labels'],
  );
  assert.not.ok(items.schemas!['labels.Item']!.meta()?.['x-primary-key']);
  assert.equal(itemEventsApi({ description, profile: 'plain' }).operations, []);
  const keyed = collection(
    await describe(member, [{ collection: 'labels', action: 'read', fields: ['code', 'text'] }]),
    'labels',
  );
  assert.not.ok(keyed.keyHidden);
});

test('a permission that no longer fits its collection grants nothing, as on reads', async () => {
  const description = await describe(member, [
    { collection: 'labels', action: 'read', permissions: { dropped: { _eq: 1 } } },
    { collection: 'labels', action: 'create', fields: ['dropped'] },
  ]);
  assert.equal(description.collections, []);
});

test('the public caller gets the public permissions only, not those of a role', async () => {
  const description = await describe(PUBLIC_ACCOUNTABILITY, [{ collection: 'labels', action: 'read' }]);
  assert.equal(description.collections, []);
  assert.equal(description.caller, { user: false, admin: false });
});

test.run();
