import { randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createInMemoryPersistence } from '../../../src/adapters/persistence/memory/in-memory-persistence.ts';
import { GetItemHandler } from '../../../src/application/items/get-item.ts';
import { ItemCursors } from '../../../src/application/items/item-cursors.ts';
import { ListItemsHandler } from '../../../src/application/items/list-items.ts';
import { ReadBack } from '../../../src/application/items/read-back.ts';
import { ReadRules } from '../../../src/application/items/read-rules.ts';
import type {
  ItemGetRequest,
  ItemKeysRequest,
  ItemListRequest,
  ItemStore,
  ItemWriter,
  SelectedField,
} from '../../../src/application/ports/item-store.ts';
import { liveSnapshot } from '../../../src/application/ports/item-store.ts';
import type { Accountability } from '../../../src/domain/accountability.ts';
import { Permission, type RawFilter } from '../../../src/domain/permissions/permission.ts';
import type { BoundFilterNode } from '../../../src/domain/query/filter.ts';
import type { RawItemQuery } from '../../../src/domain/query/parse-item-query.ts';
import { FixedClock } from '../../support/fakes/fixed-clock.ts';
import { createShippingSchema } from '../../support/shipping-schema.ts';
import { refusedWith } from './read-fixture.ts';

const LIMITS = { limitDefault: 100, limitMax: 1000, maxRelationalDepth: 3 } as const;
const CLERK_ROLE = 'c0000000-0000-4000-8000-000000000001';
const CLERK: Accountability = {
  user: 'a0000000-0000-4000-8000-00000000000a',
  role: CLERK_ROLE,
  admin: false,
  session: null,
};
const ADMIN: Accountability = { user: randomUUID(), role: null, admin: true, session: null };

/** A store that answers nothing and remembers what it was asked: the handlers' output, per caller. */
class RecordingItemStore implements ItemStore {
  lists: ItemListRequest[] = [];
  gets: ItemGetRequest[] = [];
  keys: ItemKeysRequest[] = [];

  async list(request: ItemListRequest) {
    this.lists.push(request);
    return { json: '[]' };
  }
  async get(request: ItemGetRequest) {
    this.gets.push(request);
    return '{}';
  }
  async getMany(request: ItemKeysRequest) {
    this.keys.push(request);
    return ['{}'];
  }
  async aggregate(): Promise<never> {
    throw new Error('not asked for here');
  }
  async snapshot() {
    return liveSnapshot(this);
  }
  write<T>(work: (writer: ItemWriter) => Promise<T>): Promise<T> {
    return work({ getMany: (request: ItemKeysRequest) => this.getMany(request) } as ItemWriter);
  }
}

async function fixture() {
  const persistence = createInMemoryPersistence();
  await createShippingSchema(persistence.schemaEditor);
  const store = new RecordingItemStore();
  const rules = new ReadRules(persistence.permissions);
  const clock = new FixedClock('2026-03-01T12:00:00.000Z');
  const cursors = new ItemCursors('relational-reads-secret-of-at-least-32-characters');
  const listItems = new ListItemsHandler(persistence.schema, rules, store, clock, LIMITS, 1 << 20, cursors);
  const getItem = new GetItemHandler(persistence.schema, rules, store, clock, LIMITS, 1 << 20);
  const readBack = new ReadBack(rules, LIMITS, 1 << 20);
  return {
    store,
    async grant(collection: string, fields: string[] = ['*'], permissions: RawFilter | null = null) {
      await persistence.permissions.save(
        new Permission({
          id: randomUUID(),
          role: CLERK_ROLE,
          collection,
          action: 'read',
          permissions,
          validation: null,
          presets: null,
          fields,
        }),
      );
    },
    async list(caller: Accountability, collection: string, query: RawItemQuery): Promise<ItemListRequest> {
      await listItems.execute(caller, { collection, query });
      return store.lists.at(-1)!;
    },
    async get(caller: Accountability, collection: string, query: RawItemQuery): Promise<ItemGetRequest> {
      await getItem.execute(caller, { collection, id: '1', query });
      return store.gets.at(-1)!;
    },
    async readBack(caller: Accountability, collection: string, query: RawItemQuery) {
      const snapshot = persistence.schema.current();
      const plan = await readBack.plan(
        caller,
        snapshot.collections.get(collection)!,
        query,
        clock.now(),
        snapshot,
      );
      await store.write((writer) => readBack.read(writer, plan, [1]));
      return store.keys.at(-1)!;
    },
    listItems,
  };
}

/** A selection as names: `shipment{number}`, `cargos[label]`, `cargos[#]` for keys only. */
function outline(select: ReadonlyArray<SelectedField>): string {
  return select
    .map(({ field, nested }) => {
      if (!nested) return field;
      if (nested.keysOnly) return `${field}[#]`;
      const inner = outline(nested.select);
      return nested.hop.direction === 'many-to-one' ? `${field}{${inner}}` : `${field}[${inner}]`;
    })
    .join(',');
}

const eq = (field: string, value: string | number): BoundFilterNode => ({
  kind: 'condition',
  field,
  operator: '_eq',
  value,
});

const test = suite('relational reads: what the store is asked for, per caller');

test('an admin reads every relation asked for, with no row rule at any hop', async () => {
  const { list } = await fixture();
  const request = await list(ADMIN, 'cargos', { fields: 'id,shipment.number,shipment.customer.name' });
  assert.is(outline(request.select), 'id,shipment{number,customer{name}}');
  const shipment = request.select[1]!.nested!;
  assert.is(shipment.visible, null);
  assert.is(shipment.hop.collection.name, 'shipments');
});

test('*.*: own columns, the many-to-one in its column, the one-to-many after them', async () => {
  const { list } = await fixture();
  const request = await list(ADMIN, 'shipments', { fields: '*.*' });
  assert.is(
    outline(request.select),
    'id,number,customer{id,name,secret},cargos[id,label,weight,secret,shipment]',
  );
  const cargos = request.select[3]!.nested!;
  assert.equal([cargos.limit, cargos.offset, cargos.sort, cargos.filter], [100, 0, [], null]);
});

test('each hop carries the caller’s row rule there, and its field list narrows a wildcard', async () => {
  const { grant, list } = await fixture();
  await grant('cargos');
  await grant('shipments', ['id', 'number', 'customer'], { number: { _eq: 'S-1' } });
  await grant('customers', ['id', 'name']);
  const request = await list(CLERK, 'cargos', { fields: 'id,shipment.*,shipment.customer.*' });
  assert.is(outline(request.select), 'id,shipment{id,number,customer{id,name}}');
  assert.equal(request.select[1]!.nested!.visible, eq('number', 'S-1'));
});

test('a related collection the caller may not read: 403 naming the path when named, left out under a wildcard', async () => {
  const { grant, list } = await fixture();
  await grant('cargos');
  await grant('shipments');
  await refusedWith(
    list(CLERK, 'cargos', { fields: 'shipment.customer.name' }),
    'FORBIDDEN',
    'shipment.customer',
  );
  const request = await list(CLERK, 'cargos', { fields: '*.*.*' });
  assert.is(
    outline(request.select),
    'id,label,weight,secret,shipment{id,number,customer,cargos[id,label,weight,secret,shipment]}',
  );
});

test('a hidden field named at a hop is refused naming its path; the foreign key must be readable to expand', async () => {
  const { grant, list } = await fixture();
  await grant('cargos', ['id', 'label']);
  await grant('shipments', ['id']);
  await refusedWith(list(CLERK, 'cargos', { fields: 'shipment.id' }), 'FORBIDDEN', 'shipment');
  const { grant: grant2, list: list2 } = await fixture();
  await grant2('cargos');
  await grant2('shipments', ['id']);
  await refusedWith(list2(CLERK, 'cargos', { fields: 'shipment.number' }), 'FORBIDDEN', 'shipment.number');
});

test('one-to-many needs the child’s foreign key queryable: 403 when named, skipped under a wildcard', async () => {
  const { grant, list } = await fixture();
  await grant('shipments');
  await grant('cargos', ['id', 'label']);
  await refusedWith(list(CLERK, 'shipments', { fields: 'cargos.label' }), 'FORBIDDEN', 'cargos');
  await refusedWith(
    list(CLERK, 'shipments', { filter: { cargos: { _some: { label: { _eq: 'x' } } } } }),
    'FORBIDDEN',
    'cargos',
  );
  const request = await list(CLERK, 'shipments', { fields: '*.*' });
  assert.is(outline(request.select), 'id,number,customer');
});

test('filters across relations: every field named must be queryable at its hop, and each hop’s rule is ANDed in', async () => {
  const { grant, list } = await fixture();
  await grant('shipments');
  await grant('cargos', ['id', 'label', 'weight', 'shipment'], { weight: { _lt: 10 } });
  await grant('customers', ['id', 'name'], { name: { _eq: 'ACME' } });
  const request = await list(CLERK, 'shipments', {
    filter: { cargos: { _none: { label: { _eq: 'bolts' } } } },
  });
  assert.equal(request.filter, {
    kind: 'relation',
    hop: request.filter?.kind === 'relation' ? request.filter.hop : undefined,
    quantifier: 'none',
    node: {
      kind: 'and',
      nodes: [
        // The rule's comparison, marked as every rule's is (docs/decisions/0063); the request's is not.
        { kind: 'condition', field: 'weight', operator: '_lt', value: 10, textOrder: 'codePoint' },
        eq('label', 'bolts'),
      ],
    },
  });
  await refusedWith(
    list(CLERK, 'shipments', { filter: { cargos: { secret: { _eq: 'x' } } } }),
    'FORBIDDEN',
    'cargos.secret',
  );
  await refusedWith(
    list(CLERK, 'shipments', { filter: { customer: { secret: { _eq: 'x' } } } }),
    'FORBIDDEN',
    'customer.secret',
  );
  const { grant: grantOther, list: listOther } = await fixture();
  await grantOther('cargos');
  await grantOther('shipments', ['id', 'number', 'customer']);
  await refusedWith(
    listOther(CLERK, 'cargos', { filter: { shipment: { customer: { name: { _eq: 'ACME' } } } } }),
    'FORBIDDEN',
    'shipment.customer',
  );
});

test('a relational sort carries each hop’s rule; its fields must be queryable; no cursor with it', async () => {
  const { grant, list } = await fixture();
  await grant('cargos');
  await grant('shipments', ['id', 'number', 'customer'], { number: { _neq: 'S-3' } });
  await grant('customers', ['id', 'name'], { name: { _eq: 'ACME' } });
  const request = await list(CLERK, 'cargos', { sort: '-shipment.customer.name' });
  const [key] = request.sort;
  assert.is(key?.field, 'name');
  assert.equal(
    key?.through?.map(({ hop, visible }) => [hop.key, visible]),
    [
      ['shipment', { kind: 'condition', field: 'number', operator: '_neq', value: 'S-3' }],
      ['customer', eq('name', 'ACME')],
    ],
  );
  await refusedWith(
    list(CLERK, 'cargos', { sort: 'shipment.customer.secret' }),
    'FORBIDDEN',
    'shipment.customer.secret',
  );
  await refusedWith(list(CLERK, 'cargos', { sort: 'shipment.number', meta: 'next' }), 'INVALID_QUERY');
});

test('deep pages a one-to-many with the caller’s checks on its filter and sort', async () => {
  const { grant, list } = await fixture();
  await grant('shipments');
  await grant('cargos', ['id', 'label', 'weight', 'shipment']);
  const request = await list(CLERK, 'shipments', {
    fields: 'id,cargos',
    deep: { cargos: { _filter: { weight: { _gt: '5' } }, _sort: '-weight', _limit: '2' } },
  });
  const cargos = request.select[1]!.nested!;
  assert.is(cargos.keysOnly, true);
  assert.equal(cargos.filter, { kind: 'condition', field: 'weight', operator: '_gt', value: 5 });
  assert.equal(cargos.sort, [{ field: 'weight', direction: 'desc' }]);
  assert.is(cargos.limit, 2);
  await refusedWith(
    list(CLERK, 'shipments', {
      fields: 'cargos.id',
      deep: { cargos: { _filter: { secret: { _eq: 'x' } } } },
    }),
    'FORBIDDEN',
    'cargos.secret',
  );
});

test('a flat query asks for no other collection and stays as it was', async () => {
  const { grant, list } = await fixture();
  await grant('cargos', ['id', 'label', 'shipment']);
  const request = await list(CLERK, 'cargos', { fields: 'id,shipment', sort: 'shipment' });
  assert.is(outline(request.select), 'id,shipment');
  assert.equal(request.sort, [{ field: 'shipment', direction: 'asc' }]);
});

test('a read by key and a write’s read-back expand relations the same way', async () => {
  const { grant, get, readBack } = await fixture();
  await grant('cargos');
  await grant('shipments', ['id', 'number', 'customer'], { number: { _eq: 'S-1' } });
  const got = await get(CLERK, 'cargos', { fields: 'id,shipment.number' });
  assert.is(outline(got.select), 'id,shipment{number}');
  assert.equal(got.select[1]!.nested!.visible, eq('number', 'S-1'));
  const written = await readBack(CLERK, 'shipments', {
    fields: 'number,cargos',
    deep: { cargos: { _limit: '5' } },
  });
  assert.is(outline(written.select), 'number,cargos[#]');
  await refusedWith(
    get(CLERK, 'cargos', { fields: 'shipment.customer.name' }),
    'FORBIDDEN',
    'shipment.customer',
  );
});

test.run();
