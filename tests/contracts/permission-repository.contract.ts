import { randomUUID } from 'node:crypto';
import * as assert from 'uvu/assert';
import type { Persistence } from '../../src/adapters/persistence/persistence.ts';
import type { PermissionRepository } from '../../src/application/ports/permission-repository.ts';
import { Permission, type PermissionProps } from '../../src/domain/permissions/permission.ts';
import type { PersistenceTarget } from '../support/databases.ts';
import { skippableSuite } from '../support/skippable-suite.ts';
import { aRole } from './fixtures.ts';

type Context = { persistence: Persistence; permissions: PermissionRepository };

function aPermission(props: Partial<PermissionProps> = {}): Permission {
  return new Permission({
    id: randomUUID(),
    role: null,
    collection: 'cargos',
    action: 'read',
    permissions: null,
    validation: null,
    presets: null,
    fields: ['*'],
    ...props,
  });
}

const byId = (a: Permission, b: Permission) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

export function permissionRepositoryContract(target: PersistenceTarget) {
  const test = skippableSuite<Context>(`PermissionRepository on ${target.name}`, target.skip);
  test.before.each(async (context) => {
    context.persistence = await target.fresh();
    context.permissions = context.persistence.permissions;
  });
  test.after(() => target.dispose());

  test('a saved permission comes back whole, JSON values included', async ({ persistence, permissions }) => {
    const role = aRole();
    await persistence.roles.save(role);
    const permission = aPermission({
      role: role.id,
      action: 'update',
      permissions: {
        _and: [{ owner: { _eq: '$CURRENT_USER' } }, { temperature: { _between: [-20.5, 4] } }],
        date_created: { _gte: '$NOW(-1 day)' },
      },
      validation: { description: { _nempty: true }, is_deleted: { _eq: false } },
      presets: { is_deleted: false, description: 'n/a', nested: { list: [1, 'two', null, true] } },
      fields: ['id', 'description', 'temperature'],
    });
    await permissions.save(permission);
    const found = await permissions.findById(permission.id);
    assert.instance(found, Permission);
    assert.equal(found, permission);
  });

  test('update changes an existing permission, and never brings back a deleted one', async ({
    permissions,
  }) => {
    const permission = aPermission();
    await permissions.save(permission);
    const updated = await permissions.update(permission.id, async (stored) =>
      aPermission({ ...stored, action: 'update' }),
    );
    assert.is(updated?.action, 'update');
    assert.is((await permissions.findById(permission.id))?.action, 'update');
    await permissions.delete(permission.id);
    let changed = false;
    const gone = await permissions.update(permission.id, async (stored) => {
      changed = true;
      return stored;
    });
    assert.is(gone, null);
    assert.not.ok(changed, 'nothing to change');
    assert.is(await permissions.findById(permission.id), null);
    assert.is(await permissions.update('not-a-uuid', async (stored) => stored), null);
  });

  test('two changes of one permission at once each keep the other: the second is given the first', async ({
    permissions,
  }) => {
    const permission = aPermission();
    await permissions.save(permission);
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let firstRead = () => {};
    const readByFirst = new Promise<void>((resolve) => {
      firstRead = resolve;
    });
    const first = permissions.update(permission.id, async (stored) => {
      firstRead();
      await held;
      return aPermission({ ...stored, fields: ['id'] });
    });
    await readByFirst;
    const secondSaw: Permission[] = [];
    const second = permissions.update(permission.id, async (stored) => {
      secondSaw.push(stored);
      return aPermission({ ...stored, presets: { label: 'b' } });
    });
    // Give the second every chance to read the row before the first has written it.
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(secondSaw, [], 'the second waits for the first');
    release();
    await Promise.all([first, second]);
    assert.equal(secondSaw[0]?.fields, ['id']);
    const stored = await permissions.findById(permission.id);
    assert.equal(stored?.fields, ['id']);
    assert.equal(stored?.presets, { label: 'b' });
  });

  test('a change that throws writes nothing and lets the next one through', async ({ permissions }) => {
    const permission = aPermission();
    await permissions.save(permission);
    const refused = await permissions
      .update(permission.id, async () => {
        throw new Error('refused');
      })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    assert.instance(refused, Error);
    assert.equal(await permissions.findById(permission.id), permission);
    const next = await permissions.update(permission.id, async (stored) =>
      aPermission({ ...stored, action: 'delete' }),
    );
    assert.is(next?.action, 'delete');
  });

  test('null and empty JSON values stay what they were', async ({ permissions }) => {
    const nothing = aPermission({ permissions: null, validation: null, presets: null, fields: null });
    const empty = aPermission({ permissions: {}, validation: {}, presets: {}, fields: [] });
    await permissions.save(nothing);
    await permissions.save(empty);
    assert.equal(await permissions.findById(nothing.id), nothing);
    assert.equal(await permissions.findById(empty.id), empty);
  });

  test('unknown and malformed ids find nothing', async ({ permissions }) => {
    await permissions.save(aPermission());
    assert.is(await permissions.findById(randomUUID()), null);
    assert.is(await permissions.findById('not-a-uuid'), null);
  });

  test('saving an existing id replaces the permission', async ({ persistence, permissions }) => {
    const role = aRole();
    await persistence.roles.save(role);
    const permission = aPermission({ permissions: { id: { _eq: 'x' } } });
    await permissions.save(permission);
    const changed = new Permission({
      ...permission,
      role: role.id,
      action: 'delete',
      permissions: null,
      fields: ['id'],
    });
    await permissions.save(changed);
    assert.equal(await permissions.findById(permission.id), changed);
    assert.equal(await permissions.list(), [changed]);
  });

  test('changing a permission after saving it or after reading it changes nothing stored', async ({
    permissions,
  }) => {
    const permission = aPermission({ permissions: { id: { _eq: 'x' } }, fields: ['id'] });
    await permissions.save(permission);
    permission.fields?.push('description');
    const read = await permissions.findById(permission.id);
    read?.fields?.push('temperature');
    assert.equal((await permissions.findById(permission.id))?.fields, ['id']);
  });

  test('list returns every permission', async ({ persistence, permissions }) => {
    assert.equal(await permissions.list(), []);
    const role = aRole();
    await persistence.roles.save(role);
    const saved = [
      aPermission(),
      aPermission({ role: role.id, collection: 'articles', action: 'create' }),
      aPermission({ role: role.id }),
    ];
    for (const permission of saved) await permissions.save(permission);
    assert.equal((await permissions.list()).sort(byId), saved.sort(byId));
  });

  test('listFor a role gives that role’s permissions for one collection and action', async ({
    persistence,
    permissions,
  }) => {
    const editor = aRole();
    const other = aRole();
    await persistence.roles.save(editor);
    await persistence.roles.save(other);
    const wanted = [aPermission({ role: editor.id }), aPermission({ role: editor.id, fields: ['id'] })];
    const unwanted = [
      aPermission({ role: other.id }),
      aPermission({ role: null }),
      aPermission({ role: editor.id, collection: 'articles' }),
      aPermission({ role: editor.id, action: 'update' }),
    ];
    for (const permission of [...wanted, ...unwanted]) await permissions.save(permission);
    assert.equal((await permissions.listFor(editor.id, 'cargos', 'read')).sort(byId), wanted.sort(byId));
    assert.equal(await permissions.listFor(randomUUID(), 'cargos', 'read'), []);
    assert.equal(await permissions.listFor('not-a-uuid', 'cargos', 'read'), []);
  });

  test('listFor null gives the public permissions only', async ({ persistence, permissions }) => {
    const role = aRole();
    await persistence.roles.save(role);
    const publicRead = aPermission({ role: null });
    for (const permission of [publicRead, aPermission({ role: role.id }), aPermission({ action: 'create' })])
      await permissions.save(permission);
    assert.equal(await permissions.listFor(null, 'cargos', 'read'), [publicRead]);
  });

  test('delete reports whether there was such a permission', async ({ permissions }) => {
    const permission = aPermission();
    await permissions.save(permission);
    assert.is(await permissions.delete(permission.id), true);
    assert.is(await permissions.findById(permission.id), null);
    assert.is(await permissions.delete(permission.id), false);
    assert.is(await permissions.delete('not-a-uuid'), false);
  });

  test('deleting a role deletes its permissions, and no others', async ({ persistence, permissions }) => {
    const role = aRole();
    const other = aRole();
    await persistence.roles.save(role);
    await persistence.roles.save(other);
    const doomed = [aPermission({ role: role.id }), aPermission({ role: role.id, action: 'update' })];
    const kept = [aPermission({ role: other.id }), aPermission({ role: null })];
    for (const permission of [...doomed, ...kept]) await permissions.save(permission);
    await persistence.roles.delete(role.id);
    assert.equal((await permissions.list()).sort(byId), kept.sort(byId));
    assert.equal(await permissions.listFor(role.id, 'cargos', 'read'), []);
  });

  return test;
}
