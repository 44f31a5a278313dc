import { connect } from 'node:net';
import * as assert from 'uvu/assert';
import { createInMemoryPersistence } from '../../src/adapters/persistence/memory/in-memory-persistence.ts';
import type { Persistence } from '../../src/adapters/persistence/persistence.ts';
import type { ErrorBody } from '../http/scenario.ts';
import { borrowed, type PersistenceTarget } from '../support/databases.ts';
import { seedRows } from '../support/seed-rows.ts';
import { startTestApp, type TestApp, type TestResponse } from '../support/test-app.ts';

/** What the attacks in this folder aim at: a small cargos table, an admin, and an operator with a row filter. */
export const CARGO = {
  fish: '0190a000-0000-7000-8000-000000000001',
  bananas: '0190a000-0000-7000-8000-000000000002',
  archived: '0190a000-0000-7000-8000-000000000003',
} as const;

export const CARGOS_FIELDS = [
  { field: 'id', type: 'uuid', schema: { is_primary_key: true } },
  { field: 'description', type: 'text' },
  { field: 'code', type: 'string', schema: { max_length: 32 } },
  { field: 'temperature', type: 'float' },
  { field: 'crates', type: 'integer' },
  { field: 'is_deleted', type: 'boolean', schema: { is_nullable: false, default_value: false } },
  { field: 'manifest', type: 'json' },
];

export const CARGO_ROWS = [
  {
    id: CARGO.fish,
    description: 'Frozen fish',
    code: 'F-1',
    temperature: -18,
    crates: 3,
    is_deleted: false,
    manifest: { origin: 'Bergen' },
  },
  {
    id: CARGO.bananas,
    description: 'Bananas 100%_ripe',
    code: 'B-2',
    temperature: 13.5,
    crates: 10,
    is_deleted: false,
    manifest: null,
  },
  {
    id: CARGO.archived,
    description: 'Archived',
    code: 'A-3',
    temperature: 5,
    crates: null,
    is_deleted: true,
    manifest: [1, 2],
  },
];

/** Columns an operator may read: everything but `is_deleted`, and only rows not deleted. */
export const OPERATOR_FIELDS = ['id', 'description', 'code', 'temperature', 'crates', 'manifest'];

export type Arena = { app: TestApp; admin: string; operator: string; adminId: string; operatorId: string };

/** Paths that read a JSON body, with the token each needs. */
export function bodyRoutes(arena: Arena): Array<[string, string, string | undefined]> {
  return [
    ['POST', '/auth/login', undefined],
    ['POST', '/auth/refresh', undefined],
    ['POST', '/items/cargos', arena.admin],
    ['PATCH', `/items/cargos/${CARGO.fish}`, arena.admin],
    ['PATCH', '/items/cargos', arena.operator],
    ['DELETE', '/items/cargos', arena.operator],
    ['POST', '/users', arena.admin],
    ['PATCH', '/users/me', arena.operator],
    ['POST', '/roles', arena.admin],
    ['POST', '/permissions', arena.admin],
    ['POST', '/collections', arena.admin],
  ];
}

/**
 * Creates `cargos` (dropping a leftover one on a shared database), seeds three rows, and an Operator role
 * that may read, create, update and delete the rows that are not deleted.
 */
export async function prepareArena(app: TestApp, persistence: Persistence): Promise<Arena> {
  const seeded = await app.seedAdmin();
  const admin = (await app.login(seeded)).access_token;
  const created = await app.request('POST', '/collections', {
    token: admin,
    body: { collection: 'cargos', fields: CARGOS_FIELDS },
  });
  assert.is(created.status, 200, created.text);
  await seedRows(persistence, 'cargos', CARGO_ROWS);

  const role = await app.createRole({ name: 'Operator' });
  for (const action of ['read', 'create', 'update', 'delete']) {
    const permission = await app.request('POST', '/permissions', {
      token: admin,
      body: {
        role: role.id,
        collection: 'cargos',
        action,
        permissions: action === 'create' ? {} : { is_deleted: { _eq: false } },
        fields: action === 'delete' ? ['*'] : OPERATOR_FIELDS,
      },
    });
    assert.is(permission.status, 200, permission.text);
  }
  const user = await app.createUser({ role: role.id });
  const operator = (await app.login(user)).access_token;
  return { app, admin, operator, adminId: seeded.id, operatorId: user.id };
}

/** Drops the table if an earlier, crashed run left it on a shared database. */
async function dropLeftoverCargos(persistence: Persistence) {
  await persistence.schema.refresh();
  if (persistence.schema.current().collections.has('cargos'))
    await persistence.schemaEditor.dropCollection('cargos');
}

/** An arena on a fresh lease of `target`: for a suite's `before`, ended by `closeArena` in its `after`. */
export async function openArena(target: PersistenceTarget, env?: Record<string, string>): Promise<Arena> {
  const persistence = borrowed(await target.fresh());
  await dropLeftoverCargos(persistence);
  return prepareArena(await startTestApp({ persistence, env }), persistence);
}

/** An arena on an in-memory persistence of its own, which closing the app ends. */
export async function openMemoryArena(env?: Record<string, string>): Promise<Arena> {
  const persistence = createInMemoryPersistence();
  return prepareArena(await startTestApp({ persistence, env }), persistence);
}

/** Drops `cargos` (the database may be shared with other suites), closes the app, then ends the lease. */
export async function closeArena(arena: Arena, target: PersistenceTarget) {
  await arena.app.persistence.schemaEditor.dropCollection('cargos');
  await arena.app.close();
  await target.dispose();
}

/** Removes rows a failed test left behind, so that one failure does not cascade into the next tests. */
export async function removeStrayRows(arena: Arena) {
  const seeded = JSON.stringify({ id: { _nin: CARGO_ROWS.map((row) => row.id) } });
  for (;;) {
    const stray = await arena.app.request(
      'GET',
      `/items/cargos?fields=id&limit=1000&filter=${encodeURIComponent(seeded)}`,
      { token: arena.admin },
    );
    assert.is(stray.status, 200, stray.text);
    const keys = (stray.body as Array<{ id: string }>).map((row) => row.id);
    if (keys.length === 0) return;
    const removed = await arena.app.request('DELETE', '/items/cargos', { token: arena.admin, body: keys });
    assert.is(removed.status, 204, removed.text);
  }
}

/** The table as the admin sees it, sorted by id. */
export async function adminRows(arena: Arena): Promise<Array<Record<string, unknown>>> {
  const response = await arena.app.request('GET', '/items/cargos?sort=id&limit=1000', { token: arena.admin });
  assert.is(response.status, 200, `the table answers (${response.text})`);
  return response.body as Array<Record<string, unknown>>;
}

/** After an attack: the rows are exactly the seeded ones, and the system tables still answer. */
export async function assertIntact(arena: Arena, label: string) {
  assert.equal(await adminRows(arena), CARGO_ROWS, `cargos unchanged after ${label}`);
  const users = await arena.app.request('GET', '/users', { token: arena.admin });
  assert.is(users.status, 200, `users still answer after ${label}`);
  assert.is((users.body as unknown[]).length, 2, `datagate_users unchanged after ${label}`);
  const roles = await arena.app.request('GET', '/roles', { token: arena.admin });
  assert.is((roles.body as unknown[]).length, 2, `datagate_roles unchanged after ${label}`);
}

/**
 * What a server's own failure text looks like: PostgreSQL error messages, the statements we send (all
 * use `json_agg` or quote the table), stack frames. Payloads in the tests contain none of these, so a
 * match cannot come from an echoed input.
 */
const LEAK =
  /syntax error|invalid input syntax|relation "|column "[^"]*" does not exist|violates|json_agg|"cargos"\.|\bselect "|\n\s+at |node_modules|\.[jt]s:\d+|\bpg\b|kysely|mikro|INTERNAL/i;

/** A 4xx from the contract: status in range, the contract's error body, nothing of the server's own text. */
export function assertRefused(response: TestResponse, label: string, statuses?: ReadonlyArray<number>) {
  assert.ok(
    response.status >= 400 && response.status < 500,
    `${label}: expected a 4xx, got ${response.status} ${response.text.slice(0, 300)}`,
  );
  if (statuses) assert.ok(statuses.includes(response.status), `${label}: status ${response.status}`);
  assertContractError(response, label);
}

export function assertContractError(response: TestResponse, label: string) {
  const body = response.body as ErrorBody;
  assert.ok(
    Array.isArray(body?.errors) && body.errors.length === 1,
    `${label}: not an error body: ${response.text.slice(0, 300)}`,
  );
  const [error] = body.errors;
  assert.type(error!.message, 'string', label);
  assert.type(error!.extensions?.code, 'string', label);
  assertNoLeak(response, label);
}

export function assertNoLeak(response: TestResponse, label: string) {
  const match = LEAK.exec(response.text);
  assert.not.ok(match, `${label}: the answer shows server internals (${match?.[0]}): ${response.text}`);
}

export function codeOf(response: TestResponse): string | undefined {
  return (response.body as ErrorBody | null)?.errors?.[0]?.extensions.code;
}

export function expectError(response: TestResponse, status: number, code: string, label = '') {
  assert.is(response.status, status, `${label} status (body: ${response.text.slice(0, 300)})`);
  assert.is(codeOf(response), code, `${label} code`);
  assertContractError(response, label);
  if (status === 401) assert.match(response.headers.get('www-authenticate') ?? '', /^Bearer\b/);
}

/**
 * Sends bytes exactly as given: for bodies `JSON.stringify` cannot produce (invalid UTF-8). The path is
 * passed through untouched by fetch apart from characters URLs cannot hold.
 */
export async function rawRequest(
  app: TestApp,
  method: string,
  path: string,
  body: Uint8Array | undefined,
  headers: Record<string, string> = {},
): Promise<TestResponse> {
  const response = await fetch(`${app.url}${path}`, { method, headers, body });
  const text = await response.text();
  let parsed: unknown = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = { unparsable: text };
  }
  return { status: response.status, headers: response.headers, body: parsed, text };
}

/** Concatenates text and raw bytes into one body. */
export function bytes(...parts: Array<string | number[]>): Uint8Array {
  const chunks = parts.map((part) =>
    typeof part === 'string' ? Buffer.from(part, 'utf8') : Buffer.from(part),
  );
  return new Uint8Array(Buffer.concat(chunks));
}

export const q = (value: unknown) =>
  encodeURIComponent(typeof value === 'string' ? value : JSON.stringify(value));

/**
 * Writes a request byte for byte on a fresh socket (for what fetch refuses to send: a lying
 * Content-Length, raw non-ASCII bytes in the request line) and returns the status and the raw answer.
 */
export function rawHttp(app: TestApp, request: Uint8Array): Promise<{ status: number; text: string }> {
  const { hostname, port } = new URL(app.url);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect({ host: hostname, port: Number(port) }, () => socket.end(request));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', (error: NodeJS.ErrnoException) => (chunks.length ? undefined : reject(error)));
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('latin1');
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0), text });
    });
  });
}
