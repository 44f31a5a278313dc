import * as assert from 'uvu/assert';
import type { OpenApiDocument } from '../../../src/adapters/http/openapi/openapi-types.ts';
import type { Persistence } from '../../../src/adapters/persistence/persistence.ts';
import { startTestApp, type TestApp } from '../../support/test-app.ts';
import type { Pools } from './json-tree.ts';

/** The fuzzed collection: one column of every type a client may create. */
const CARGOS_FIELDS = [
  { field: 'id', type: 'uuid', schema: { is_primary_key: true } },
  { field: 'code', type: 'string', schema: { max_length: 32, is_unique: true } },
  { field: 'description', type: 'text' },
  { field: 'crates', type: 'integer' },
  { field: 'serial', type: 'bigInteger' },
  { field: 'temperature', type: 'float' },
  { field: 'price', type: 'decimal' },
  { field: 'is_deleted', type: 'boolean', schema: { is_nullable: false, default_value: false } },
  { field: 'loaded_at', type: 'timestamp' },
  { field: 'departed_at', type: 'dateTime' },
  { field: 'shipped_on', type: 'date' },
  { field: 'pickup', type: 'time' },
  { field: 'manifest', type: 'json' },
  { field: 'user_created', type: 'uuid' },
];

/** A second collection, keyed by an identity integer, that anonymous callers may read. */
const NOTES_FIELDS = [
  { field: 'id', type: 'integer', schema: { is_primary_key: true } },
  { field: 'body', type: 'text' },
  { field: 'owner', type: 'uuid' },
];

const CARGO_IDS = [
  '0190a000-0000-7000-8000-000000000001',
  '0190a000-0000-7000-8000-000000000002',
  '0190a000-0000-7000-8000-000000000003',
];

const CARGO_ROWS = [
  {
    id: CARGO_IDS[0],
    code: 'F-1',
    description: 'Frozen fish, 100% fresh',
    crates: 3,
    serial: '9007199254740993',
    temperature: -18.5,
    price: '12345678901.23',
    loaded_at: '2024-01-10T08:00:00',
    departed_at: '2024-01-10T07:00:00Z',
    shipped_on: '2024-01-10',
    pickup: '08:30:00',
    manifest: { items: ['cod'], sealed: true },
  },
  { id: CARGO_IDS[1], code: 'B-2', description: 'Bananas', crates: 10, is_deleted: false, manifest: ['x'] },
  { id: CARGO_IDS[2], code: 'A-3', description: 'Archived', is_deleted: true },
];

/** What the restricted role may read of cargos: everything but the price. */
const CLERK_READ_FIELDS = CARGOS_FIELDS.map(({ field }) => field).filter((field) => field !== 'price');

const UNKNOWN_UUID = '0190ffff-ffff-7fff-bfff-ffffffffffff';
const CLERK_STATIC = 'clerk-static-token-0123456789abcdef-0001';
const SUSPENDED_STATIC = 'suspended-static-token-0123456789abcd-0002';

/** Who calls: a token in the Authorization header, a raw header, or nobody. */
export type Caller = { header?: string; token?: string };

export const CALLER_NAMES = [
  'admin',
  'clerk',
  'clerkStatic',
  'spare',
  'suspendedStatic',
  'anonymous',
  'garbage',
  'badSignature',
  'algNone',
  'deletedUser',
  'refreshAsAccess',
  'basicScheme',
  'emptyBearer',
] as const;

export type CallerName = (typeof CALLER_NAMES)[number];

export type Fixture = {
  app: TestApp;
  pools: Pools;
  callers: Readonly<Record<CallerName, Caller>>;
  /** The admin's OpenAPI document (GET /server/specs/oas). */
  document: OpenApiDocument;
};

/**
 * A small world on `persistence`, made over the API as an admin would: the two collections and their rows,
 * a restricted role ("clerk": rows not deleted, every field but price, writes with a validation rule, a
 * preset and a row rule), a role with no rights, the public role reading notes, static tokens, a suspended
 * and a deleted user; and every kind of caller, from the admin to forged and malformed tokens.
 */
export async function startFixture(persistence: Persistence): Promise<Fixture> {
  const app = await startTestApp({ persistence });
  const seeded = await app.seedAdmin();
  const adminPair = await app.login(seeded);
  const admin = adminPair.access_token;
  const asAdmin = async (method: string, path: string, body?: unknown) => {
    const response = await app.request(method, path, { token: admin, body });
    assert.ok(response.status < 300, `fixture: ${method} ${path} → ${response.status} ${response.text}`);
    return response.body as Record<string, unknown>;
  };

  await asAdmin('POST', '/collections', { collection: 'cargos', fields: CARGOS_FIELDS });
  await asAdmin('POST', '/collections', { collection: 'notes', fields: NOTES_FIELDS });
  await asAdmin('POST', '/items/cargos', CARGO_ROWS);
  await asAdmin('POST', '/items/notes', [{ body: 'first', owner: seeded.id }, { body: 'second' }]);

  const clerkRole = await app.createRole({ name: 'Clerk' });
  const spareRole = await app.createRole({ name: 'Spare' });
  const grants = [
    { action: 'read', permissions: { is_deleted: { _eq: false } }, fields: CLERK_READ_FIELDS },
    {
      action: 'create',
      permissions: {},
      validation: { crates: { _gte: 0 } },
      presets: { is_deleted: false },
      fields: ['id', 'code', 'description', 'crates', 'temperature', 'manifest', 'departed_at'],
    },
    {
      action: 'update',
      permissions: { user_created: { _eq: '$CURRENT_USER' } },
      fields: ['description', 'crates'],
    },
    { action: 'delete', permissions: { is_deleted: { _eq: false } }, fields: ['*'] },
  ];
  const permissionIds: string[] = [];
  for (const grant of grants) {
    const made = await asAdmin('POST', '/permissions', {
      role: clerkRole.id,
      collection: 'cargos',
      ...grant,
    });
    permissionIds.push(made.id as string);
  }
  const notes = await asAdmin('POST', '/permissions', {
    role: null,
    collection: 'notes',
    action: 'read',
    permissions: {},
    fields: ['id', 'body'],
  });
  permissionIds.push(notes.id as string);

  const clerk = await app.createUser({ role: clerkRole.id, token: CLERK_STATIC });
  const spare = await app.createUser({ role: spareRole.id });
  const suspended = await app.createUser({
    role: clerkRole.id,
    token: SUSPENDED_STATIC,
    status: 'suspended',
  });
  const doomed = await app.createUser({ role: clerkRole.id });
  const clerkPair = await app.login(clerk);
  const spareToken = (await app.login(spare)).access_token;
  const deletedToken = (await app.login(doomed)).access_token;
  await asAdmin('DELETE', `/users/${doomed.id}`);

  const document = (await app.request('GET', '/server/specs/oas', { token: admin })).body as OpenApiDocument;
  const [head, payload] = admin.split('.');
  const users = [seeded.id, clerk.id, spare.id, suspended.id];
  const roles = [seeded.role!, clerkRole.id, spareRole.id];
  const pools: Pools = {
    collection: [
      'cargos',
      'notes',
      'datagate_users',
      'datagate_sessions',
      'fresh_table',
      'nope',
      'Cargos',
      'pg_class',
    ],
    key: [...CARGO_IDS, '1', '2', UNKNOWN_UUID, '0', '-1'],
    userId: [...users, UNKNOWN_UUID],
    roleId: [...roles, UNKNOWN_UUID],
    permissionId: [...permissionIds, UNKNOWN_UUID],
    field: [...CARGOS_FIELDS.map(({ field }) => field), 'body', 'owner', 'nope', '*'],
    email: [
      seeded.email,
      clerk.email,
      suspended.email,
      'nobody@example.com',
      'fresh@example.com',
      ' ADMIN@example.com ',
    ],
    password: [seeded.password, clerk.password, 'wrong-password', 'password-123'],
    refreshToken: [adminPair.refresh_token, clerkPair.refresh_token, 'not-a-refresh-token'],
    uuid: [...CARGO_IDS, ...users, ...roles, ...permissionIds, UNKNOWN_UUID],
  };
  const bearer = (token: string): Caller => ({ token });
  const callers: Record<CallerName, Caller> = {
    admin: bearer(admin),
    clerk: bearer(clerkPair.access_token),
    clerkStatic: bearer(CLERK_STATIC),
    spare: bearer(spareToken),
    suspendedStatic: bearer(SUSPENDED_STATIC),
    anonymous: {},
    garbage: bearer('not-a-token'),
    badSignature: bearer(`${admin.slice(0, -4)}AAAA`),
    algNone: bearer(`${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${payload}.`),
    deletedUser: bearer(deletedToken),
    refreshAsAccess: bearer(clerkPair.refresh_token),
    basicScheme: { header: 'Basic YWRtaW46YWRtaW4=' },
    emptyBearer: { header: 'Bearer ' },
  };
  assert.ok(head, 'the admin token is a JWT');
  return { app, pools, callers, document };
}
