import { randomUUID } from 'node:crypto';
import type { InMemoryItemStore } from '../../../src/adapters/persistence/memory/in-memory-item-store.ts';
import { createInMemoryPersistence } from '../../../src/adapters/persistence/memory/in-memory-persistence.ts';
import { GetItemHandler } from '../../../src/application/items/get-item.ts';
import { ItemCursors } from '../../../src/application/items/item-cursors.ts';
import { ListItemsHandler } from '../../../src/application/items/list-items.ts';
import { ReadRules } from '../../../src/application/items/read-rules.ts';
import type { NewField } from '../../../src/application/ports/schema-catalog.ts';
import { type Accountability, PUBLIC_ACCOUNTABILITY } from '../../../src/domain/accountability.ts';
import { Permission, type RawFilter } from '../../../src/domain/permissions/permission.ts';
import type { RawItemQuery } from '../../../src/domain/query/parse-item-query.ts';
import { localTimestamp } from '../../../src/domain/query/temporal-text.ts';
import { FixedClock } from '../../support/fakes/fixed-clock.ts';

export const LIMITS = { limitDefault: 100, limitMax: 1000 } as const;
/** The default response byte budget, as the server is configured. */
export const RESPONSE_MAX_BYTES = 16 * 1024 ** 2;

/** The fake clock's start; row ages below are measured from it. */
export const NOW = '2026-03-01T12:00:00.000Z';

export const ROLE = {
  clerk: 'c0000000-0000-4000-8000-000000000001',
  auditor: 'c0000000-0000-4000-8000-000000000002',
  admin: 'c0000000-0000-4000-8000-0000000000ad',
} as const;

export const USER = {
  ada: 'a0000000-0000-4000-8000-00000000000a',
  bob: 'a0000000-0000-4000-8000-00000000000b',
  carol: 'a0000000-0000-4000-8000-00000000000c',
  root: 'a0000000-0000-4000-8000-0000000000ad',
} as const;

const caller = (user: string, role: string | null, admin = false): Accountability => ({
  user,
  role,
  admin,
  session: null,
});

/** Ada and Bob are clerks, Dan an auditor, Carol has no role; anonymous sends no token. */
export const CALLER = {
  ada: caller(USER.ada, ROLE.clerk),
  bob: caller(USER.bob, ROLE.clerk),
  dan: caller(randomUUID(), ROLE.auditor),
  carol: caller(USER.carol, null),
  admin: caller(USER.root, ROLE.admin, true),
  anonymous: PUBLIC_ACCOUNTABILITY,
} as const;

export const PARCELS = 'parcels';

export const PARCEL_FIELDS: NewField[] = [
  { field: 'id', type: 'integer', isPrimaryKey: true },
  { field: 'label', type: 'text' },
  { field: 'notes', type: 'text' },
  { field: 'owner', type: 'uuid' },
  { field: 'region', type: 'string', maxLength: 16 },
  { field: 'weight', type: 'float' },
  { field: 'created_at', type: 'timestamp' },
  { field: 'archived', type: 'boolean', isNullable: false, defaultValue: false },
];

export const ALL_FIELDS = PARCEL_FIELDS.map((field) => field.field);

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** A `timestamp` column holds the server's local wall-clock time, as `$NOW` binds it. */
const ago = (ms: number) => localTimestamp(new Date(new Date(NOW).getTime() - ms));

/**
 * Five parcels, ids 1–5: two owned by Ada, two by Bob, one by nobody; one archived; "needle" in the
 * notes of 1 and 2 and in the label of 5, so that a search tells the two text columns apart.
 */
export const PARCEL_ROWS = [
  {
    id: 1,
    label: 'Alpha crates',
    notes: 'needle alpha',
    owner: USER.ada,
    region: 'north',
    weight: 10,
    created_at: ago(2 * HOUR),
    archived: false,
  },
  {
    id: 2,
    label: 'Beta barrels',
    notes: 'needle beta',
    owner: USER.bob,
    region: 'south',
    weight: 20,
    created_at: ago(3 * DAY),
    archived: false,
  },
  {
    id: 3,
    label: 'Gamma gear',
    notes: null,
    owner: USER.ada,
    region: 'south',
    weight: 30,
    created_at: ago(10 * DAY),
    archived: true,
  },
  {
    id: 4,
    label: 'Delta drums',
    notes: 'plain',
    owner: null,
    region: 'north',
    weight: 40,
    created_at: ago(12 * HOUR),
    archived: false,
  },
  {
    id: 5,
    label: 'Epsilon needle',
    notes: 'nothing to see',
    owner: USER.bob,
    region: 'east',
    weight: 50,
    created_at: ago(30 * 60_000),
    archived: false,
  },
] as const;

export type Item = Record<string, unknown>;

export type Grant = {
  role?: string | null;
  permissions?: RawFilter | null;
  fields?: string[] | null;
  collection?: string;
};

/**
 * The read side wired by hand to the in-memory fakes: the parcels collection seeded, no permission yet.
 * `list` and `get` parse the handlers' JSON so tests compare values.
 */
export async function readFixture() {
  const persistence = createInMemoryPersistence();
  const clock = new FixedClock(NOW);
  const rules = new ReadRules(persistence.permissions);
  const { schema, items } = persistence;
  const listItems = new ListItemsHandler(
    schema,
    rules,
    items,
    clock,
    LIMITS,
    RESPONSE_MAX_BYTES,
    new ItemCursors('read-fixture-secret-of-at-least-32-characters'),
  );
  const getItem = new GetItemHandler(schema, rules, items, clock, LIMITS, RESPONSE_MAX_BYTES);
  await persistence.schemaEditor.createCollection(PARCELS, PARCEL_FIELDS);
  (persistence.items as InMemoryItemStore).insert(PARCELS, PARCEL_ROWS);

  return {
    persistence,
    clock,
    rules,
    listItems,
    getItem,
    /** A read permission on parcels for the clerks unless said otherwise; every field unless said. */
    async grant({ role = ROLE.clerk, permissions = null, fields = ['*'], collection = PARCELS }: Grant = {}) {
      await persistence.permissions.save(
        new Permission({
          id: randomUUID(),
          role,
          collection,
          action: 'read',
          permissions,
          validation: null,
          presets: null,
          fields,
        }),
      );
    },
    async list(who: Accountability, query: RawItemQuery = {}, collection = PARCELS) {
      const result = await listItems.execute(who, { collection, query });
      return {
        items: JSON.parse(result.json) as Item[],
        totalCount: result.totalCount,
        filterCount: result.filterCount,
      };
    },
    async get(who: Accountability, id: string, query: RawItemQuery = {}, collection = PARCELS) {
      return JSON.parse(await getItem.execute(who, { collection, id, query })) as Item;
    },
  };
}

export type ReadFixture = Awaited<ReturnType<typeof readFixture>>;

export const idsOf = (items: ReadonlyArray<Item>) => items.map((item) => item.id);

/** Rejects unless the promise fails with a DomainError of `code` (and `field`, when given). */
export async function refusedWith(promise: Promise<unknown>, code: string, field?: string): Promise<void> {
  let error: unknown;
  try {
    await promise;
  } catch (caught) {
    error = caught;
  }
  if (error === undefined) throw new Error(`expected ${code}, but it succeeded`);
  const { code: actual, extensions } = error as { code?: string; extensions?: { field?: string } };
  if (actual !== code) throw new Error(`expected ${code}, got ${actual ?? String(error)}`);
  if (field !== undefined && extensions?.field !== field) {
    throw new Error(`expected ${code} naming "${field}", got field ${String(extensions?.field)}`);
  }
}
