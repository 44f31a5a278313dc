import * as assert from 'uvu/assert';
import type { StoredItem } from '../../src/application/ports/item-store.ts';
import { borrowed, type PersistenceTarget } from '../support/databases.ts';
import { seedRows } from '../support/seed-rows.ts';
import { type SeededUser, startTestApp, type TestApp } from '../support/test-app.ts';

/** The `cargos` collection as the SDK's typed client sees it. */
export type Cargo = {
  id: string;
  date_created: string | null;
  date_updated: string | null;
  description: string | null;
  temperature: number | null;
  is_deleted: boolean;
};

export type Schema = { cargos: Cargo[] };

export const ID = {
  fish: '0190c000-0000-7000-8000-000000000001',
  bananas: '0190c000-0000-7000-8000-000000000002',
  archived: '0190c000-0000-7000-8000-000000000003',
  unmeasured: '0190c000-0000-7000-8000-000000000004',
  missing: '0190c000-0000-7000-8000-00000000ffff',
} as const;

export const ROWS: ReadonlyArray<Cargo> = [
  {
    id: ID.fish,
    date_created: '2024-01-01T10:00:00',
    date_updated: null,
    description: 'Frozen fish',
    temperature: -18,
    is_deleted: false,
  },
  {
    id: ID.bananas,
    date_created: '2024-01-02T11:30:00',
    date_updated: null,
    description: 'Bananas',
    temperature: 13.5,
    is_deleted: false,
  },
  {
    id: ID.archived,
    date_created: '2024-01-03T09:15:00',
    date_updated: '2024-02-01T08:00:00',
    description: 'Archived',
    temperature: 5,
    is_deleted: true,
  },
  {
    id: ID.unmeasured,
    date_created: '2024-01-04T12:00:00',
    date_updated: null,
    description: 'No temperature yet',
    temperature: null,
    is_deleted: false,
  },
];

/** What the Operator role may read: everything but `is_deleted`. */
export const OPERATOR_READ = ['id', 'date_created', 'date_updated', 'description', 'temperature'];

/** 32+ characters, as docs/api.md §3 requires of static tokens. */
export const ADMIN_STATIC_TOKEN = 'admin-static-token-0123456789abcdef';

const CARGOS_FIELDS = [
  { field: 'id', type: 'uuid', schema: { is_primary_key: true } },
  { field: 'date_created', type: 'timestamp' },
  { field: 'date_updated', type: 'timestamp' },
  { field: 'description', type: 'text' },
  { field: 'temperature', type: 'float' },
  { field: 'is_deleted', type: 'boolean', schema: { is_nullable: false, default_value: false } },
];

export type CargosScenario = {
  app: TestApp;
  admin: SeededUser;
  operator: SeededUser;
  /** The rows as stored, bypassing the API and its permissions: what a write really changed. */
  stored(): Promise<Map<string, StoredItem>>;
  close(): Promise<void>;
};

/**
 * A datagate server in the directus profile on `target`, with the seed's `cargos` rows and an Operator
 * role that may read live cargos (`is_deleted = false`) without `is_deleted`, create them, change their
 * description and temperature (between -30 and 30) and delete them. The admin has a static token.
 */
export async function startCargosScenario(
  target: PersistenceTarget,
  env: Record<string, string> = {},
): Promise<CargosScenario> {
  const persistence = borrowed(await target.fresh());
  await persistence.schema.refresh();
  if (persistence.schema.current().collections.has('cargos'))
    await persistence.schemaEditor.dropCollection('cargos');
  const app = await startTestApp({ persistence, env: { API_PROFILE: 'directus', ...env } });
  const admin = await app.seedAdmin();
  const adminToken = await accessToken(app, admin);
  const asAdmin = async (method: string, path: string, body: unknown) => {
    const response = await app.request(method, path, { token: adminToken, body });
    assert.is(response.status, 200, `${method} ${path}: ${response.text}`);
  };

  await asAdmin('POST', '/collections', { collection: 'cargos', fields: CARGOS_FIELDS });
  await seedRows(persistence, 'cargos', ROWS);
  await asAdmin('PATCH', `/users/${admin.id}`, { token: ADMIN_STATIC_TOKEN });

  const role = await app.createRole({ name: 'Operator' });
  const live = { is_deleted: { _eq: false } };
  const grant = (body: Record<string, unknown>) =>
    asAdmin('POST', '/permissions', { role: role.id, collection: 'cargos', ...body });
  await grant({ action: 'read', permissions: live, fields: OPERATOR_READ });
  await grant({
    action: 'create',
    fields: ['description', 'temperature'],
    presets: { is_deleted: false },
    validation: { _or: [{ temperature: { _null: true } }, { temperature: { _between: [-30, 30] } }] },
  });
  await grant({
    action: 'update',
    permissions: live,
    fields: ['description', 'temperature'],
    validation: { _or: [{ temperature: { _null: true } }, { temperature: { _between: [-30, 30] } }] },
  });
  await grant({ action: 'delete', permissions: live });
  const operator = await app.createUser({ role: role.id, email: 'operator@example.com' });

  return {
    app,
    admin,
    operator,
    async stored() {
      const cargos = app.persistence.schema.current().collections.get('cargos')!;
      const rows = await app.persistence.items.write((writer) => writer.lockMatching(cargos, null));
      return new Map(rows.map((row) => [String(row.id), row]));
    },
    async close() {
      await app.persistence.schemaEditor.dropCollection('cargos');
      await app.close();
    },
  };
}

/** Set-up only: the tests themselves talk to the server through the SDK. */
async function accessToken(app: TestApp, user: SeededUser): Promise<string> {
  const response = await app.request('POST', '/auth/login', {
    body: { email: user.email, password: user.password },
  });
  assert.is(response.status, 200, response.text);
  return (response.body as { data: { access_token: string } }).data.access_token;
}
