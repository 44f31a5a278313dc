import { randomUUID } from 'node:crypto';
import * as assert from 'uvu/assert';
import type { InMemoryItemStore } from '../../../src/adapters/persistence/memory/in-memory-item-store.ts';
import { createInMemoryPersistence } from '../../../src/adapters/persistence/memory/in-memory-persistence.ts';
import type { InMemorySchema } from '../../../src/adapters/persistence/memory/in-memory-schema.ts';
import { CreateItemsHandler } from '../../../src/application/items/create-items.ts';
import { DeleteItemsHandler } from '../../../src/application/items/delete-items.ts';
import { ReadBack } from '../../../src/application/items/read-back.ts';
import { ReadRules } from '../../../src/application/items/read-rules.ts';
import { UpdateItemsHandler } from '../../../src/application/items/update-items.ts';
import type { WriteResult } from '../../../src/application/items/write-result.ts';
import { WriteRules } from '../../../src/application/items/write-rules.ts';
import type { NewField } from '../../../src/application/ports/schema-catalog.ts';
import { type Accountability, PUBLIC_ACCOUNTABILITY } from '../../../src/domain/accountability.ts';
import {
  Permission,
  type PermissionAction,
  type RawFilter,
} from '../../../src/domain/permissions/permission.ts';
import type { RawItemQuery } from '../../../src/domain/query/parse-item-query.ts';
import { FixedClock } from '../../support/fakes/fixed-clock.ts';

import { refusedWith } from './read-fixture.ts';

export { refusedWith };

export const LIMITS = { limitDefault: 100, limitMax: 1000 } as const;
/** The default response byte budget, as the server is configured. */
export const RESPONSE_MAX_BYTES = 16 * 1024 ** 2;
export const BATCH_MAX = 5;

/** The fake clock's start: seconds and milliseconds set, so whole-second truncation shows. */
export const NOW = '2026-03-01T12:34:56.789Z';

/**
 * The seed format of a `timestamp` column (`YYYY-MM-DDThh:mm:ss`, server local time), computed here from
 * the Date's local getters rather than with the code under test.
 */
export function seedTime(at: Date | string): string {
  const date = new Date(at);
  const two = (value: number) => String(value).padStart(2, '0');
  return (
    `${String(date.getFullYear()).padStart(4, '0')}-${two(date.getMonth() + 1)}-${two(date.getDate())}` +
    `T${two(date.getHours())}:${two(date.getMinutes())}:${two(date.getSeconds())}`
  );
}

export const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

export const ROLE = {
  operator: 'b0000000-0000-4000-8000-000000000001',
  viewer: 'b0000000-0000-4000-8000-000000000002',
  admin: 'b0000000-0000-4000-8000-0000000000ad',
} as const;

export const USER = {
  ada: 'a0000000-0000-4000-8000-00000000000a',
  bob: 'a0000000-0000-4000-8000-00000000000b',
  carol: 'a0000000-0000-4000-8000-00000000000c',
  vic: 'a0000000-0000-4000-8000-00000000000d',
  root: 'a0000000-0000-4000-8000-0000000000ad',
} as const;

const caller = (user: string, role: string | null, admin = false): Accountability => ({
  user,
  role,
  admin,
  session: null,
});

/** Ada and Bob are operators, Vic a viewer, Carol has no role (public permissions); anonymous sends no token. */
export const CALLER = {
  ada: caller(USER.ada, ROLE.operator),
  bob: caller(USER.bob, ROLE.operator),
  vic: caller(USER.vic, ROLE.viewer),
  carol: caller(USER.carol, null),
  admin: caller(USER.root, ROLE.admin, true),
  anonymous: PUBLIC_ACCOUNTABILITY,
} as const;

export const CARGOS = 'cargos';

/** The seed's sample collection (uuid key, `is_deleted` flag, auto fields) with a required label and a status. */
export const CARGO_FIELDS: NewField[] = [
  { field: 'id', type: 'uuid', isPrimaryKey: true },
  { field: 'label', type: 'string', maxLength: 16, isNullable: false },
  { field: 'description', type: 'text' },
  { field: 'temperature', type: 'float' },
  { field: 'status', type: 'string', maxLength: 16 },
  { field: 'is_deleted', type: 'boolean', isNullable: false, defaultValue: false },
  { field: 'date_created', type: 'timestamp' },
  { field: 'user_created', type: 'uuid' },
  { field: 'date_updated', type: 'timestamp' },
  { field: 'user_updated', type: 'uuid' },
];

export const CARGO = {
  apples: '0190a1b2-0000-7000-8000-000000000001',
  bananas: '0190a1b2-0000-7000-8000-000000000002',
  coal: '0190a1b2-0000-7000-8000-000000000003',
  dates: '0190a1b2-0000-7000-8000-000000000004',
  eggs: '0190a1b2-0000-7000-8000-000000000005',
} as const;

/** A well-formed key no row has. */
export const MISSING = '0190a1b2-0000-7000-8000-00000000ffff';

export const SEED_CREATED = '2026-01-01T08:00:00';

const cargo = (
  id: string,
  label: string,
  description: string | null,
  temperature: number,
  is_deleted = false,
) => ({
  id,
  label,
  description,
  temperature,
  status: 'stored',
  is_deleted,
  date_created: SEED_CREATED,
  user_created: USER.bob,
  date_updated: null,
  user_updated: null,
});

/** Five cargos; coal is archived (`is_deleted`), dates has no description. Keys in stored order. */
export const CARGO_ROWS = [
  cargo(CARGO.apples, 'Apples', 'fresh', 4),
  cargo(CARGO.bananas, 'Bananas', 'ripe', 12),
  cargo(CARGO.coal, 'Coal', 'archived', 20, true),
  cargo(CARGO.dates, 'Dates', null, 18),
  cargo(CARGO.eggs, 'Eggs', 'fragile', 6),
] as const;

const SEEDED: ReadonlySet<string> = new Set(CARGO_ROWS.map((row) => row.id));

export type Item = Record<string, unknown>;

export type Grant = {
  role?: string | null;
  collection?: string;
  permissions?: RawFilter | null;
  validation?: RawFilter | null;
  presets?: Record<string, unknown> | null;
  fields?: string[] | null;
};

/** Operators' default: may act on cargos that are not archived. */
export const NOT_DELETED: RawFilter = { is_deleted: { _eq: false } };

const parsed = (result: WriteResult): unknown => (result === null ? null : JSON.parse(result.json));

/**
 * The write side wired by hand to the in-memory fakes, with a fixed clock and a batch limit of
 * BATCH_MAX: the cargos collection seeded, no permission yet. Handlers answer parsed JSON (null for 204);
 * `rows()` is the table as stored, for state-based assertions.
 */
export async function writeFixture() {
  const persistence = createInMemoryPersistence();
  const clock = new FixedClock(NOW);
  const readRules = new ReadRules(persistence.permissions);
  const writeRules = new WriteRules(persistence.permissions);
  const readBack = new ReadBack(readRules, LIMITS, RESPONSE_MAX_BYTES);
  const { schema, items } = persistence;
  const createItems = new CreateItemsHandler(
    schema,
    readRules,
    writeRules,
    items,
    readBack,
    clock,
    BATCH_MAX,
  );
  const updateItems = new UpdateItemsHandler(
    schema,
    readRules,
    writeRules,
    items,
    readBack,
    clock,
    BATCH_MAX,
  );
  const deleteItems = new DeleteItemsHandler(schema, readRules, writeRules, items, clock, BATCH_MAX);
  await persistence.schemaEditor.createCollection(CARGOS, CARGO_FIELDS);
  const store = items as InMemoryItemStore;
  store.insert(CARGOS, CARGO_ROWS);
  const table = (schema as InMemorySchema).table(CARGOS)!;

  const rows = (): Item[] => table.rows.map((row) => ({ ...row }));

  return {
    persistence,
    clock,
    /** Adds rows as a client would write them, bypassing the handlers. */
    seed: (extra: ReadonlyArray<Item>) => store.insert(CARGOS, extra),
    /** A permission for the operators unless said otherwise: every row, every field, no rule. */
    async grant(
      action: PermissionAction,
      {
        role = ROLE.operator,
        collection = CARGOS,
        permissions = null,
        validation = null,
        presets = null,
        fields = ['*'],
      }: Grant = {},
    ) {
      await persistence.permissions.save(
        new Permission({
          id: randomUUID(),
          role,
          collection,
          action,
          permissions,
          validation,
          presets,
          fields,
        }),
      );
    },
    async create(who: Accountability, body: unknown, query: RawItemQuery = {}) {
      return parsed(await createItems.execute(who, { collection: CARGOS, body, query }));
    },
    /** PATCH /items/cargos/:key (with `key`) or PATCH /items/cargos (without). */
    async update(
      who: Accountability,
      body: unknown,
      { key, query = {} }: { key?: string; query?: RawItemQuery } = {},
    ) {
      return parsed(
        await updateItems.execute(who, {
          collection: CARGOS,
          body,
          query,
          ...(key === undefined ? {} : { key }),
        }),
      );
    },
    /** DELETE /items/cargos/:key (with `key`) or DELETE /items/cargos with `body`. */
    async remove(who: Accountability, target: { key: string } | { body: unknown }) {
      await deleteItems.execute(who, { collection: CARGOS, ...target });
    },
    /** Every stored row, as plain objects, in stored order. */
    rows,
    /** One stored row, or undefined. */
    row: (id: string): Item | undefined => rows().find((row) => row.id === id),
    /** The rows the handlers added, in stored order (the seeded ones left out). */
    added: (): Item[] => rows().filter((row) => !SEEDED.has(String(row.id))),
    /** The stored keys, sorted. */
    ids: (): string[] =>
      rows()
        .map((row) => String(row.id))
        .sort(),
  };
}

export type WriteFixture = Awaited<ReturnType<typeof writeFixture>>;

/** The seeded row of `id` as stored, plus `changes`. */
export function seeded(id: string, changes: Item = {}): Item {
  const row = CARGO_ROWS.find((candidate) => candidate.id === id);
  if (!row) throw new Error(`no seeded cargo ${id}`);
  return { ...row, ...changes };
}

/** A write's answer that must be one item (a JSON object). */
export function asItem(result: unknown): Item {
  assert.type(result, 'object');
  assert.ok(result !== null && !Array.isArray(result), `expected one item, got ${JSON.stringify(result)}`);
  return result as Item;
}

/** A write's answer that must be a list of items. */
export function asItems(result: unknown): Item[] {
  assert.ok(Array.isArray(result), `expected an array, got ${JSON.stringify(result)}`);
  return result as Item[];
}

/** Asserts `attempt` fails with `code` (naming `field`, when given) and the table is exactly as before. */
export async function refusedUnchanged(
  fixture: WriteFixture,
  attempt: () => Promise<unknown>,
  code: string,
  field?: string,
): Promise<void> {
  const before = fixture.rows();
  await refusedWith(attempt(), code, field);
  assert.equal(fixture.rows(), before, 'the table changed although the write was refused');
}
