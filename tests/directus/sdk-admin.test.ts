import {
  createCollection,
  createField,
  createItem,
  createPermission,
  createRole,
  createUser,
  deleteCollection,
  deleteField,
  deletePermission,
  deleteRole,
  deleteUser,
  readCollection,
  readField,
  readItems,
  readMe,
  readPermission,
  readPermissions,
  readRole,
  readRoles,
  readUser,
  readUsers,
  updateCollection,
  updateMe,
  updatePermission,
  updateRole,
  updateUser,
} from '@directus/sdk';
import * as assert from 'uvu/assert';
import { backends } from '../support/databases.ts';
import { suitePerBackend } from '../support/suite-per-backend.ts';
import { sdkError } from './sdk-clients.ts';
import { type SdkScenario, startSdkScenario, stopSdkScenario } from './sdk-scenario.ts';

type Context = SdkScenario;

/** A name no other suite uses: database targets are shared by every suite of the process. */
const CRATES = 'sdk_crates';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

async function dropCrates({ scenario }: Context) {
  const { collections } = await scenario.app.persistence.schema.refresh();
  if (collections.has(CRATES)) await scenario.app.persistence.schemaEditor.dropCollection(CRATES);
}

/**
 * The administration functions of `@directus/sdk` (docs/api.md §1 "`@directus/sdk` against this profile", §6,
 * §7): users, roles and permissions written one at a time, collections and fields, and `updateMe` for
 * every user. The read side with queries is `sdk-system-queries.test.ts`.
 */
for (const [target, admin] of suitePerBackend<Context>(
  backends(),
  (backend) => `@directus/sdk administration on ${backend}`,
)) {
  admin.before(async (context) => {
    Object.assign(context, await startSdkScenario(target));
    await dropCrates(context);
  });
  admin.after(async (context) => {
    await dropCrates(context);
    await stopSdkScenario(context, target);
  });

  admin('a role, its permission and its user: created, changed and deleted', async ({ admin, clients }) => {
    const role = await admin.request(createRole({ name: 'Auditor', description: 'Reads cargos' }));
    assert.match(role.id, UUID);
    assert.equal(
      { ...role, id: undefined },
      { id: undefined, name: 'Auditor', description: 'Reads cargos', admin_access: false },
    );
    const grant = await admin.request(
      createPermission({ role: role.id, collection: 'cargos', action: 'read', fields: ['id'] } as never),
    );
    // The SDK types Directus 11's `policy`; a permission here names its `role` (docs/api.md §6).
    assert.equal(
      [(grant as unknown as { role: string }).role, grant.collection, grant.action, grant.fields],
      [role.id, 'cargos', 'read', ['id']],
    );
    assert.is(grant.permissions, null, 'absent members are null');
    const user = await admin.request(
      createUser({ email: 'Auditor@Example.com', password: 'auditor-password', role: role.id }),
    );
    assert.equal(
      [user.email, user.role, user.status, user.token],
      ['auditor@example.com', role.id, 'active', null],
    );

    const auditor = clients.session();
    await auditor.login({ email: 'auditor@example.com', password: 'auditor-password' });
    const firstCargo = async () => (await auditor.request(readItems('cargos', { limit: 1 })))[0]!;
    assert.equal(Object.keys(await firstCargo()), ['id']);

    const widened = await admin.request(updatePermission(grant.id, { fields: ['id', 'description'] }));
    assert.equal(widened.fields, ['id', 'description']);
    assert.equal(Object.keys(await firstCargo()), ['id', 'description']);
    assert.equal(await admin.request(readPermission(grant.id, { fields: ['fields'] })), {
      fields: ['id', 'description'],
    });

    assert.is((await admin.request(updateRole(role.id, { description: null }))).description, null);
    assert.equal(await admin.request(readRole(role.id, { fields: ['name', 'description'] })), {
      name: 'Auditor',
      description: null,
    });
    const suspended = await admin.request(updateUser(user.id, { status: 'suspended', last_name: 'Gone' }));
    assert.equal([suspended.status, suspended.last_name], ['suspended', 'Gone']);
    // A suspension ends the user's sessions at once (docs/api.md §3a).
    await sdkError(auditor.refresh(), 401, 'INVALID_TOKEN');

    assert.is(await admin.request(deletePermission(grant.id)), null);
    await sdkError(admin.request(readPermission(grant.id)), 404, 'NOT_FOUND');
    assert.is(await admin.request(deleteRole(role.id)), null);
    assert.is(
      (await admin.request(readUser(user.id, { fields: ['role'] }))).role,
      null,
      'left without a role',
    );
    assert.is(await admin.request(deleteUser(user.id)), null);
    await sdkError(admin.request(readUser(user.id)), 404, 'NOT_FOUND');
  });

  admin(
    'every write answers as its fields ask; a bad fields is refused with nothing written',
    async ({ admin, operator }) => {
      const role = await admin.request(createRole({ name: 'Shaped' }, { fields: ['name'] }));
      assert.equal(role, { name: 'Shaped' });
      const [{ id: roleId }] = await admin.request(
        readRoles({ filter: { name: { _eq: 'Shaped' } }, fields: ['id'] }),
      );
      assert.equal(
        await admin.request(updateRole(roleId!, { description: 'd' }, { fields: ['description'] })),
        {
          description: 'd',
        },
      );
      const grant = await admin.request(
        createPermission({ role: roleId, collection: 'cargos', action: 'read' } as never, {
          fields: ['id', 'action'],
        }),
      );
      assert.equal(Object.keys(grant), ['id', 'action']);
      assert.equal(
        await admin.request(updatePermission(grant.id, { fields: ['id'] }, { fields: ['fields'] })),
        {
          fields: ['id'],
        },
      );
      const user = await admin.request(
        createUser(
          { email: 'shaped@example.com', password: 'password-123', role: roleId },
          { fields: ['email'] },
        ),
      );
      assert.equal(user, { email: 'shaped@example.com' });
      const [{ id: userId }] = await admin.request(
        readUsers({ filter: { email: { _eq: 'shaped@example.com' } }, fields: ['id'] }),
      );
      assert.equal(
        await admin.request(updateUser(userId!, { first_name: 'S' }, { fields: ['first_name'] })),
        {
          first_name: 'S',
        },
      );

      const bad = { fields: ['nothing'] } as never;
      for (const write of [
        () => admin.request(createRole({ name: 'Never' }, bad)),
        () => admin.request(updateRole(roleId!, { name: 'Never' }, bad)),
        () =>
          admin.request(
            createPermission({ role: roleId, collection: 'cargos', action: 'create' } as never, bad),
          ),
        () => admin.request(updatePermission(grant.id, { fields: ['*'] }, bad)),
        () =>
          admin.request(
            createUser({ email: 'never@example.com', password: 'password-123', role: null }, bad),
          ),
        () => admin.request(updateUser(userId!, { first_name: 'Never' }, bad)),
        () => operator.request(updateMe({ first_name: 'Never' }, bad)),
      ]) {
        await sdkError(write(), 400, 'INVALID_QUERY');
      }
      assert.equal(await admin.request(readRole(roleId!, { fields: ['name'] })), { name: 'Shaped' });
      assert.equal(await admin.request(readPermission(grant.id, { fields: ['fields'] })), { fields: ['id'] });
      assert.equal(
        await admin.request(
          readPermissions({ filter: { role: { _eq: roleId } } as never, fields: ['action'] }),
        ),
        [{ action: 'read' }],
      );
      assert.equal(await admin.request(readUsers({ filter: { email: { _eq: 'never@example.com' } } })), []);
      assert.equal(await admin.request(readUser(userId!, { fields: ['first_name'] })), { first_name: 'S' });
      assert.is((await operator.request(readMe({ fields: ['first_name'] }))).first_name, null);
      // A non-admin is refused before its fields are read.
      await sdkError(operator.request(createRole({ name: 'Mine' }, bad)), 403, 'FORBIDDEN');
      await admin.request(deleteUser(userId!));
      await admin.request(deleteRole(roleId!));
    },
  );

  admin('refusals carry the codes and fields the SDK reads', async ({ admin, scenario }) => {
    const cases: Array<[string, () => Promise<unknown>, number, string, string | undefined]> = [
      [
        'createUser without a role',
        () => admin.request(createUser({ email: 'x@example.com', password: 'password-123' })),
        400,
        'INVALID_PAYLOAD',
        'role',
      ],
      [
        'createUser with a short password',
        () => admin.request(createUser({ email: 'x@example.com', password: 'short', role: null })),
        400,
        'FAILED_VALIDATION',
        'password',
      ],
      [
        'createUser with a taken e-mail',
        () =>
          admin.request(createUser({ email: scenario.operator.email, password: 'password-123', role: null })),
        409,
        'RECORD_NOT_UNIQUE',
        'email',
      ],
      [
        'createRole with a taken name',
        () => admin.request(createRole({ name: 'Operator' })),
        409,
        'RECORD_NOT_UNIQUE',
        'name',
      ],
      [
        'createPermission with an unknown action',
        () => admin.request(createPermission({ role: null, collection: 'cargos', action: 'share' } as never)),
        400,
        'FAILED_VALIDATION',
        'action',
      ],
      [
        'suspending the last admin',
        () => admin.request(updateUser(scenario.admin.id, { status: 'suspended' })),
        400,
        'INVALID_PAYLOAD',
        undefined,
      ],
    ];
    for (const [name, call, status, code, field] of cases) {
      const error = await sdkError(call(), status, code).catch((failure: Error) => {
        throw new Error(`${name}: ${failure.message}`);
      });
      assert.is(error.errors[0]?.extensions.field, field, name);
    }
  });

  admin('a non-admin is refused every administration function', async ({ operator, scenario }) => {
    for (const call of [
      () => operator.request(createRole({ name: 'Mine' })),
      () => operator.request(updateUser(scenario.operator.id, { first_name: 'Me' })),
      () => operator.request(deleteRole(scenario.operator.role!)),
      () => operator.request(createPermission({ role: null, collection: 'cargos', action: 'read' } as never)),
      () => operator.request(readCollection('cargos')),
      () => operator.request(createField('cargos', { field: 'x', type: 'integer' } as never)),
    ]) {
      await sdkError(call(), 403, 'FORBIDDEN');
    }
  });

  admin(
    'updateMe changes the caller’s names; a new password ends its sessions',
    async ({ clients, scenario }) => {
      const me = clients.session();
      await me.login({ email: scenario.operator.email, password: scenario.operator.password });
      const named = await me.request(
        updateMe({ first_name: 'Olga', last_name: 'Operator' }, { fields: ['first_name', 'last_name'] }),
      );
      assert.equal(named, { first_name: 'Olga', last_name: 'Operator' });
      assert.is((await me.request(readMe({ fields: ['first_name'] }))).first_name, 'Olga');
      for (const member of ['email', 'role', 'status', 'token'] as const) {
        const refused = await sdkError(me.request(updateMe({ [member]: null } as never)), 403, 'FORBIDDEN');
        assert.is(refused.errors[0]?.extensions.field, member);
      }
      await me.request(updateMe({ password: 'another-password' }));
      await sdkError(me.refresh(), 401, 'INVALID_TOKEN');
      const again = clients.session();
      await again.login({ email: scenario.operator.email, password: 'another-password' });
      await again.request(updateMe({ password: scenario.operator.password }));
    },
  );

  admin('a collection and its fields: created, read, changed and dropped', async ({ admin }) => {
    const made = await admin.request(
      createCollection({
        collection: CRATES,
        schema: {},
        fields: [
          { field: 'id', type: 'integer', schema: { is_primary_key: true } },
          { field: 'label', type: 'string', schema: { max_length: 40, is_nullable: false } },
        ],
      } as never),
    );
    assert.equal([made.collection, (made as unknown as { primary_key: string }).primary_key], [CRATES, 'id']);
    const weight = await admin.request(
      createField(CRATES as never, { field: 'weight', type: 'float' } as never),
    );
    assert.equal([weight.field, weight.type, weight.schema?.is_nullable], ['weight', 'float', true]);
    assert.equal(await admin.request(readField(CRATES as never, 'weight')), weight);
    const read = await admin.request(readCollection(CRATES as never));
    assert.equal(
      (read as unknown as { fields: Array<{ field: string }> }).fields.map((field) => field.field),
      ['id', 'label', 'weight'],
    );
    const quiet = await admin.request(
      updateCollection(CRATES as never, { meta: { accountability: null } } as never),
    );
    assert.equal(quiet.meta, { accountability: null, realtime_watch: false });
    const crate = await admin.request(createItem(CRATES as never, { label: 'A', weight: 2 } as never));
    assert.equal(crate, { id: 1, label: 'A', weight: 2 });

    assert.is(await admin.request(deleteField(CRATES as never, 'weight')), null);
    await sdkError(admin.request(readField(CRATES as never, 'weight')), 404, 'NOT_FOUND');
    await sdkError(
      admin.request(createField(CRATES as never, { field: 'label', type: 'text' } as never)),
      409,
      'RECORD_NOT_UNIQUE',
    );
    assert.is(await admin.request(deleteCollection(CRATES as never)), null);
    await sdkError(admin.request(readCollection(CRATES as never)), 404, 'COLLECTION_NOT_FOUND');
  });

  admin.run();
}
