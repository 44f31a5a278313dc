import * as assert from 'uvu/assert';
import { borrowed, type PersistenceTarget } from './databases.ts';
import { createShippingSchema, SHIPPING_COLLECTIONS, SHIPPING_ROWS } from './shipping-schema.ts';
import { startTestApp, type TestApp } from './test-app.ts';

/** One permission of a role (read unless said): on `collection`, with its row filter and fields (`*` when not given). */
export type ShippingGrant = {
  readonly collection: 'customers' | 'shipments' | 'cargos';
  readonly action?: 'read' | 'create';
  readonly permissions?: Record<string, unknown>;
  readonly fields?: string[];
};

export type ShippingApp = { app: TestApp; tokens: Record<string, string> };

/** The answer's payload, unwrapped from the directus profile's `{ data }`. */
export function payload(profile: string, body: unknown): unknown {
  return profile === 'directus' ? (body as { data: unknown }).data : body;
}

/**
 * The shipping example (shipping-schema.ts) behind a test app on `target`: collections and foreign keys
 * made by the schema editor, rows written by the admin over HTTP, and one user per role of `roles`
 * (tokens by role name, plus `admin`). `env`: further settings (docs/api.md §8).
 */
export async function startShippingApp(
  target: PersistenceTarget,
  roles: Record<string, ReadonlyArray<ShippingGrant>>,
  profile = 'plain',
  env: Record<string, string> = {},
): Promise<ShippingApp> {
  const persistence = borrowed(await target.fresh());
  await persistence.schema.refresh();
  await dropShippingCollections(persistence.schemaEditor, persistence.schema.current().collections);
  await createShippingSchema(persistence.schemaEditor);
  const app = await startTestApp({ persistence, env: { ...env, API_PROFILE: profile } });
  const login = async (user: { email: string; password: string }) => {
    const response = await app.request('POST', '/auth/login', { body: user });
    assert.is(response.status, 200, response.text);
    return (payload(profile, response.body) as { access_token: string }).access_token;
  };
  const admin = await login(await app.seedAdmin());
  const asAdmin = async (method: string, path: string, body: unknown) => {
    const response = await app.request(method, path, { token: admin, body });
    assert.is(response.status, 200, `${method} ${path}: ${response.text}`);
  };
  for (const { name } of SHIPPING_COLLECTIONS)
    await asAdmin('POST', `/items/${name}`, SHIPPING_ROWS[name as keyof typeof SHIPPING_ROWS]);
  const tokens: Record<string, string> = { admin };
  for (const [name, grants] of Object.entries(roles)) {
    const role = await app.createRole({ name });
    for (const { collection, action = 'read', permissions = null, fields = ['*'] } of grants) {
      await asAdmin('POST', '/permissions', {
        role: role.id,
        collection,
        action,
        permissions,
        fields,
      });
    }
    tokens[name] = await login(await app.createUser({ role: role.id }));
  }
  return { app, tokens };
}

/** Drops what a previous suite on the same database left, children first. */
export async function dropShippingCollections(
  editor: { dropCollection(name: string): Promise<void> },
  existing: ReadonlyMap<string, unknown>,
): Promise<void> {
  for (const { name } of [...SHIPPING_COLLECTIONS].reverse()) {
    if (existing.has(name)) await editor.dropCollection(name);
  }
}
