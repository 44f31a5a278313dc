import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { SchemaCatalog } from '../../../src/application/ports/schema-catalog.ts';
import type { CollectionWatch } from '../../../src/application/realtime/collection-watch.ts';
import { ListWatchedCollectionsHandler } from '../../../src/application/realtime/list-watched-collections.ts';
import { UnwatchCollectionHandler } from '../../../src/application/realtime/unwatch-collection.ts';
import { WatchCollectionHandler } from '../../../src/application/realtime/watch-collection.ts';
import { type Accountability, SYSTEM_ACCOUNTABILITY } from '../../../src/domain/accountability.ts';
import type { CollectionSchema, FieldSchema } from '../../../src/domain/schema/collection-schema.ts';
import { expectDomainError } from '../../support/expect-domain-error.ts';

const id: FieldSchema = {
  name: 'id',
  type: 'integer',
  dbType: 'integer',
  nullable: false,
  defaultValue: null,
  isPrimaryKey: true,
  isUnique: true,
  hasDefault: false,
  maxLength: null,
};
const cargos: CollectionSchema = { name: 'cargos', primaryKey: 'id', fields: [id] };
const keyless: CollectionSchema = {
  name: 'readings',
  primaryKey: null,
  fields: [{ ...id, isPrimaryKey: false }],
};
const view: CollectionSchema = { name: 'cold_cargos', primaryKey: 'id', fields: [id], readOnly: true };

const catalog: SchemaCatalog = {
  current: () => ({ collections: new Map([cargos, keyless, view].map((c) => [c.name, c])), relations: [] }),
  refresh: async () => catalog.current(),
};

const operator: Accountability = { user: 'u1', role: 'r1', admin: false, session: null };

function fakeWatch(): CollectionWatch & { watchedNow: string[] } {
  const watchedNow: string[] = [];
  return {
    watchedNow,
    watch: async (collection) => {
      watchedNow.push(collection.name);
    },
    unwatch: async (name) => watchedNow.includes(name),
    watched: async () => watchedNow.map((collection) => ({ collection, current: true })),
  };
}

const test = suite('Watching hand-made writes: who may, and what');

test('an admin watches a table with a primary key', async () => {
  const watch = fakeWatch();
  await new WatchCollectionHandler(catalog, watch).execute(SYSTEM_ACCOUNTABILITY, { collection: 'cargos' });
  assert.equal(watch.watchedNow, ['cargos']);
  assert.equal(await new ListWatchedCollectionsHandler(watch).execute(SYSTEM_ACCOUNTABILITY), [
    { collection: 'cargos', current: true },
  ]);
  assert.is(
    await new UnwatchCollectionHandler(catalog, watch).execute(SYSTEM_ACCOUNTABILITY, {
      collection: 'cargos',
    }),
    true,
  );
});

test('refused: to others than admins, for a view, a table without a key, a missing collection', async () => {
  const watch = fakeWatch();
  const handler = new WatchCollectionHandler(catalog, watch);
  await expectDomainError(handler.execute(operator, { collection: 'cargos' }), 'FORBIDDEN');
  await expectDomainError(handler.execute(SYSTEM_ACCOUNTABILITY, { collection: 'cold_cargos' }), 'FORBIDDEN');
  await expectDomainError(
    handler.execute(SYSTEM_ACCOUNTABILITY, { collection: 'readings' }),
    'INVALID_PAYLOAD',
  );
  await expectDomainError(
    handler.execute(SYSTEM_ACCOUNTABILITY, { collection: 'nowhere' }),
    'COLLECTION_NOT_FOUND',
  );
  await expectDomainError(new ListWatchedCollectionsHandler(watch).execute(operator), 'FORBIDDEN');
  assert.equal(watch.watchedNow, []);
});

test('where there is no SQL to write by hand (in memory), watching is refused and nothing is watched', async () => {
  await expectDomainError(
    new WatchCollectionHandler(catalog, undefined).execute(SYSTEM_ACCOUNTABILITY, { collection: 'cargos' }),
    'INVALID_PAYLOAD',
  );
  await expectDomainError(
    new UnwatchCollectionHandler(catalog, undefined).execute(SYSTEM_ACCOUNTABILITY, { collection: 'cargos' }),
    'INVALID_PAYLOAD',
  );
  assert.equal(await new ListWatchedCollectionsHandler(undefined).execute(SYSTEM_ACCOUNTABILITY), []);
});

test.run();
