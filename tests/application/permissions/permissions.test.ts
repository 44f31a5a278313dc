import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { InMemoryPermissionRepository } from '../../../src/adapters/persistence/memory/in-memory-permission-repository.ts';
import { InMemoryRoleRepository } from '../../../src/adapters/persistence/memory/in-memory-role-repository.ts';
import { CreatePermissionHandler } from '../../../src/application/permissions/create-permission.ts';
import { DeletePermissionHandler } from '../../../src/application/permissions/delete-permission.ts';
import { GetPermissionHandler } from '../../../src/application/permissions/get-permission.ts';
import { ListPermissionsHandler } from '../../../src/application/permissions/list-permissions.ts';
import type { CreatePermissionCommand } from '../../../src/application/permissions/permission-command.ts';
import { PermissionValidator } from '../../../src/application/permissions/permission-validator.ts';
import { UpdatePermissionHandler } from '../../../src/application/permissions/update-permission.ts';
import type { SchemaCatalog } from '../../../src/application/ports/schema-catalog.ts';
import {
  type Accountability,
  PUBLIC_ACCOUNTABILITY,
  SYSTEM_ACCOUNTABILITY,
} from '../../../src/domain/accountability.ts';
import { DomainError } from '../../../src/domain/errors.ts';
import { MATCH_ALL } from '../../../src/domain/query/filter.ts';
import { Role } from '../../../src/domain/role.ts';
import type { CollectionSchema } from '../../../src/domain/schema/collection-schema.ts';
import { CARGOS } from '../../domain/permissions/fixtures.ts';
import { rejectsWith } from '../../support/auth-fixture.ts';

const EDITOR = 'e0000000-0000-4000-8000-000000000000';
const MISSING = '00000000-0000-4000-8000-000000000000';
const member: Accountability = { user: 'u1', role: EDITOR, admin: false, session: null };

const catalog: SchemaCatalog = {
  current: () => ({ collections: new Map([[CARGOS.name, CARGOS]]), relations: [] }),
  refresh: async () => catalog.current(),
};

/** Stands in for parseFilter: refuses top-level keys that are neither logical operators nor fields. */
function parseFilter(raw: unknown, collection: CollectionSchema) {
  for (const key of Object.keys(raw as object)) {
    if (!key.startsWith('_') && !collection.fields.some((field) => field.name === key)) {
      throw new DomainError('INVALID_QUERY', `Unknown field "${key}".`);
    }
  }
  return MATCH_ALL;
}

async function fixture() {
  const roles = new InMemoryRoleRepository();
  await roles.save(new Role({ id: EDITOR, name: 'Editor', description: null, adminAccess: false }));
  const permissions = new InMemoryPermissionRepository(roles);
  const validator = new PermissionValidator(roles, catalog, parseFilter);
  return {
    roles,
    permissions,
    list: new ListPermissionsHandler(permissions),
    get: new GetPermissionHandler(permissions, { limitDefault: 100, limitMax: 1000 }),
    create: new CreatePermissionHandler(permissions, validator),
    update: new UpdatePermissionHandler(permissions, validator),
    remove: new DeletePermissionHandler(permissions),
  };
}

const readCargos: CreatePermissionCommand = { role: EDITOR, collection: 'cargos', action: 'read' };

async function refusedOn(attempt: Promise<unknown>, field: string) {
  const error = await attempt.then(
    () => assert.unreachable(`accepted a bad ${field}`),
    (reason: unknown) => reason,
  );
  assert.instance(error, DomainError);
  assert.is((error as DomainError).code, 'FAILED_VALIDATION');
  assert.is((error as DomainError).extensions.field, field);
  return error as DomainError;
}

test('administration of permissions needs an admin', async () => {
  const f = await fixture();
  const id = (await f.create.execute(SYSTEM_ACCOUNTABILITY, readCargos)).id;
  for (const [caller, code] of [
    [PUBLIC_ACCOUNTABILITY, 'UNAUTHENTICATED'],
    [member, 'FORBIDDEN'],
  ] as const) {
    await rejectsWith(f.list.execute(caller), code);
    await rejectsWith(f.get.execute(caller, { id }), code);
    await rejectsWith(f.create.execute(caller, readCargos), code);
    await rejectsWith(f.update.execute(caller, { id, changes: { fields: ['*'] } }), code);
    await rejectsWith(f.remove.execute(caller, { id }), code);
  }
  assert.is((await f.list.execute(SYSTEM_ACCOUNTABILITY)).length, 1);
});

test("a role's permissions for an action come in the order they were created, which is the order their presets merge in", async () => {
  const f = await fixture();
  const created: string[] = [];
  for (let n = 0; n < 20; n++) {
    const permission = await f.create.execute(SYSTEM_ACCOUNTABILITY, {
      role: EDITOR,
      collection: 'cargos',
      action: 'create',
      presets: { description: `preset ${n}` },
    });
    created.push(permission.id);
  }
  const applied = await f.permissions.listFor(EDITOR, 'cargos', 'create');
  assert.equal(
    applied.map((permission) => permission.id),
    created,
  );
});

test('a created permission is stored and shown with its wire names; omitted parts are null', async () => {
  const f = await fixture();
  const full = await f.create.execute(SYSTEM_ACCOUNTABILITY, {
    ...readCargos,
    permissions: { owner: { _eq: '$CURRENT_USER' } },
    validation: { temperature: { _lt: 10 } },
    presets: { is_deleted: false },
    fields: ['id', 'description'],
  });
  assert.equal(await f.get.execute(SYSTEM_ACCOUNTABILITY, { id: full.id }), full);
  assert.equal(Object.keys(full), [
    'id',
    'role',
    'collection',
    'action',
    'permissions',
    'validation',
    'presets',
    'fields',
  ]);
  const bare = await f.create.execute(SYSTEM_ACCOUNTABILITY, { ...readCargos, role: null });
  assert.equal(
    { ...bare, id: 'x' },
    {
      id: 'x',
      role: null,
      collection: 'cargos',
      action: 'read',
      permissions: null,
      validation: null,
      presets: null,
      fields: null,
    },
  );
});

test('a permission may name a collection that does not exist yet; nothing is checked against it', async () => {
  const f = await fixture();
  const view = await f.create.execute(SYSTEM_ACCOUNTABILITY, {
    ...readCargos,
    collection: 'articles',
    permissions: { author: { _eq: '$CURRENT_USER' } },
    fields: ['title'],
  });
  assert.is(view.collection, 'articles');
});

test('bad values are FAILED_VALIDATION naming the field, and nothing is stored', async () => {
  const f = await fixture();
  const cases: Array<[Partial<Record<keyof CreatePermissionCommand, unknown>>, string]> = [
    [{ role: MISSING }, 'role'],
    [{ role: 'not-a-uuid' }, 'role'],
    [{ action: 'share' }, 'action'],
    [{ collection: '' }, 'collection'],
    [{ collection: '1cargos' }, 'collection'],
    [{ collection: 'car-gos' }, 'collection'],
    [{ collection: 'x'.repeat(64) }, 'collection'],
    [{ collection: 'datagate_users' }, 'collection'],
    [{ collection: 'DataGate_Roles' }, 'collection'],
    [{ permissions: [] }, 'permissions'],
    [{ permissions: 'owner = me' }, 'permissions'],
    [{ permissions: { weight: { _gt: 1 } } }, 'permissions'],
    [{ permissions: { description: { _eq: 'a\u0000b' } } }, 'permissions'],
    [{ validation: { weight: { _gt: 1 } } }, 'validation'],
    [{ presets: ['x'] }, 'presets'],
    [{ presets: { weight: 1 } }, 'presets'],
    [{ fields: 'id' }, 'fields'],
    [{ fields: ['id', 1] }, 'fields'],
    [{ fields: [''] }, 'fields'],
    [{ fields: ['id', 'weight'] }, 'fields'],
  ];
  for (const [change, field] of cases) {
    const command = { ...readCargos, ...change } as CreatePermissionCommand;
    await refusedOn(f.create.execute(SYSTEM_ACCOUNTABILITY, command), field);
  }
  assert.equal(await f.list.execute(SYSTEM_ACCOUNTABILITY), []);
});

test("a filter the parser refuses is reported with the parser's message", async () => {
  const f = await fixture();
  const error = await refusedOn(
    f.create.execute(SYSTEM_ACCOUNTABILITY, { ...readCargos, permissions: { weight: { _gt: 1 } } }),
    'permissions',
  );
  assert.is(error.message, 'Unknown field "weight".');
});

test("a preset must fit its field as an item write would, a dynamic value as it would for a caller, and not be the server's", async () => {
  const f = await fixture();
  for (const [presets, named] of [
    [{ temperature: 'hot' }, 'temperature'],
    [{ description: 'ok', is_deleted: 'maybe' }, 'is_deleted'],
    [{ owner: 'me' }, 'owner'],
    [{ owner: '$CURRENT_USER.role' }, 'owner'],
    [{ temperature: '$CURRENT_USER' }, 'temperature'],
    [{ is_deleted: '$NOW' }, 'is_deleted'],
    // Set by the server whatever a preset says: refused rather than stored to be dropped at every write.
    [{ date_created: '2000-01-01T00:00:00' }, 'date_created'],
    [{ id: MISSING }, 'id'],
  ] as const) {
    const error = await refusedOn(
      f.create.execute(SYSTEM_ACCOUNTABILITY, { ...readCargos, action: 'create', presets }),
      'presets',
    );
    assert.ok(error.message.includes(`"${named}"`), error.message);
  }
  assert.equal(await f.list.execute(SYSTEM_ACCOUNTABILITY), []);
  const presets = { owner: '$CURRENT_USER', temperature: 1.5, is_deleted: false, description: null };
  const view = await f.create.execute(SYSTEM_ACCOUNTABILITY, { ...readCargos, action: 'create', presets });
  assert.equal(view.presets, presets);
});

test('a field named twice in "fields" is stored once, in the order first named', async () => {
  const f = await fixture();
  for (const [fields, stored] of [
    [['id', 'id'], ['id']],
    [
      ['description', 'id', 'description', 'id'],
      ['description', 'id'],
    ],
    [['*', '*'], ['*']],
  ]) {
    const view = await f.create.execute(SYSTEM_ACCOUNTABILITY, { ...readCargos, fields });
    assert.equal(view.fields, stored);
    assert.equal(
      (await f.update.execute(SYSTEM_ACCOUNTABILITY, { id: view.id, changes: { fields } })).fields,
      stored,
    );
  }
});

test('* may stand alone or among names', async () => {
  const f = await fixture();
  for (const fields of [['*'], ['*', 'id']]) {
    assert.equal((await f.create.execute(SYSTEM_ACCOUNTABILITY, { ...readCargos, fields })).fields, fields);
  }
});

test('update changes the given keys only, null clears, and the result is checked whole', async () => {
  const f = await fixture();
  const created = await f.create.execute(SYSTEM_ACCOUNTABILITY, {
    ...readCargos,
    permissions: { owner: { _eq: '$CURRENT_USER' } },
    fields: ['id'],
  });
  const updated = await f.update.execute(SYSTEM_ACCOUNTABILITY, {
    id: created.id,
    changes: {
      permissions: null,
      fields: ['*'],
    },
  });
  assert.equal(updated, { ...created, permissions: null, fields: ['*'] });
  assert.equal(await f.get.execute(SYSTEM_ACCOUNTABILITY, { id: created.id }), updated);

  await refusedOn(
    f.update.execute(SYSTEM_ACCOUNTABILITY, { id: created.id, changes: { action: 'share' } }),
    'action',
  );
  // Moving the permission to another collection re-checks its filters against that one.
  const onArticles = await f.create.execute(SYSTEM_ACCOUNTABILITY, {
    ...readCargos,
    collection: 'articles',
    permissions: { author: { _eq: 'x' } },
  });
  await refusedOn(
    f.update.execute(SYSTEM_ACCOUNTABILITY, { id: onArticles.id, changes: { collection: 'cargos' } }),
    'permissions',
  );
  assert.equal(await f.get.execute(SYSTEM_ACCOUNTABILITY, { id: created.id }), updated);
});

test('two updates at once each keep the other: the later is merged into the permission the earlier wrote', async () => {
  const roles = new InMemoryRoleRepository();
  await roles.save(new Role({ id: EDITOR, name: 'Editor', description: null, adminAccess: false }));
  const permissions = new InMemoryPermissionRepository(roles);
  // The first update's check waits on its role lookup, long enough for the second to run whole.
  let release = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  let lookups = 0;
  const slowRoles = {
    findById: async (id: string) => {
      if (++lookups === 2) await held;
      return roles.findById(id);
    },
  } as unknown as InMemoryRoleRepository;
  const validator = new PermissionValidator(slowRoles, catalog, parseFilter);
  const create = new CreatePermissionHandler(permissions, validator);
  const update = new UpdatePermissionHandler(permissions, validator);
  const { id } = await create.execute(SYSTEM_ACCOUNTABILITY, { ...readCargos, fields: ['*'] });
  const first = update.execute(SYSTEM_ACCOUNTABILITY, { id, changes: { fields: ['id'] } });
  const second = update.execute(SYSTEM_ACCOUNTABILITY, { id, changes: { presets: { description: 'b' } } });
  await new Promise((resolve) => setTimeout(resolve, 20));
  release();
  await Promise.all([first, second]);
  const stored = await permissions.findById(id);
  assert.equal(stored?.fields, ['id']);
  assert.equal(stored?.presets, { description: 'b' });
});

test('unknown permissions are NOT_FOUND for get, update and delete', async () => {
  const f = await fixture();
  await rejectsWith(f.get.execute(SYSTEM_ACCOUNTABILITY, { id: MISSING }), 'NOT_FOUND');
  await rejectsWith(
    f.update.execute(SYSTEM_ACCOUNTABILITY, { id: MISSING, changes: { fields: null } }),
    'NOT_FOUND',
  );
  await rejectsWith(f.remove.execute(SYSTEM_ACCOUNTABILITY, { id: MISSING }), 'NOT_FOUND');
});

test('delete removes the permission', async () => {
  const f = await fixture();
  const created = await f.create.execute(SYSTEM_ACCOUNTABILITY, readCargos);
  await f.remove.execute(SYSTEM_ACCOUNTABILITY, { id: created.id });
  await rejectsWith(f.get.execute(SYSTEM_ACCOUNTABILITY, { id: created.id }), 'NOT_FOUND');
});

test('deleting a role deletes its permissions', async () => {
  const f = await fixture();
  await f.create.execute(SYSTEM_ACCOUNTABILITY, readCargos);
  const kept = await f.create.execute(SYSTEM_ACCOUNTABILITY, { ...readCargos, role: null });
  await f.roles.delete(EDITOR);
  assert.equal(await f.list.execute(SYSTEM_ACCOUNTABILITY), [kept]);
});

test.run();
