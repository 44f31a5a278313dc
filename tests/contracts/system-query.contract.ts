import { randomUUID } from 'node:crypto';
import * as assert from 'uvu/assert';
import type { Persistence } from '../../src/adapters/persistence/persistence.ts';
import type { SystemPage } from '../../src/application/ports/system-query.ts';
import {
  PERMISSIONS_COLLECTION,
  ROLES_COLLECTION,
  USERS_COLLECTION,
} from '../../src/application/system-queries/system-collections.ts';
import { parseSystemListQuery } from '../../src/application/system-queries/system-list-query.ts';
import type { Accountability } from '../../src/domain/accountability.ts';
import { SYSTEM_ACCOUNTABILITY } from '../../src/domain/accountability.ts';
import { Permission, type PermissionProps } from '../../src/domain/permissions/permission.ts';
import type { RawItemQuery } from '../../src/domain/query/parse-item-query.ts';
import type { CollectionSchema } from '../../src/domain/schema/collection-schema.ts';
import type { PersistenceTarget } from '../support/databases.ts';
import { skippableSuite } from '../support/skippable-suite.ts';
import { aRole, at, aUser, digest, T0 } from './fixtures.ts';

type Seeded = {
  users: Record<'ada' | 'bob' | 'carol' | 'dave', string>;
  roles: Record<'admins' | 'editors' | 'viewers', string>;
  permissions: Record<'articlesRead' | 'articlesCreate' | 'cargosPublic', string>;
};
type Context = { persistence: Persistence; seeded: Seeded };

const LIMITS = { limitDefault: 100, limitMax: 1000 };

/** What the handlers hand the repositories: the query string parsed for that collection. */
function query(
  raw: RawItemQuery,
  collection: CollectionSchema,
  caller: Accountability = SYSTEM_ACCOUNTABILITY,
) {
  return parseSystemListQuery(raw, collection, LIMITS, caller, T0).query;
}

const ids = (page: SystemPage<{ id: string }>) => page.records.map((record) => record.id);

/**
 * Roles, users and permissions whose fields tell them apart on every backend: lower-case ASCII where
 * order matters (code point order and a linguistic collation agree on it), distinct creation times.
 */
async function seed({ users, roles, permissions }: Persistence): Promise<Seeded> {
  const admins = aRole({ name: 'admins', adminAccess: true, description: 'Everything' });
  const editors = aRole({ name: 'editors', description: 'Writes articles' });
  const viewers = aRole({ name: 'viewers' });
  for (const role of [viewers, admins, editors]) await roles.save(role);
  const ada = aUser({
    email: 'ada@example.com',
    firstName: 'Ada',
    lastName: 'Lovelace',
    roleId: admins.id,
    tokenDigest: digest('ffee'),
    createdAt: at(1),
  });
  const bob = aUser({
    email: 'bob@example.com',
    firstName: 'Bob',
    roleId: editors.id,
    status: 'suspended',
    createdAt: at(2),
  });
  const carol = aUser({
    email: 'carol@example.com',
    firstName: 'Carol',
    lastName: 'Shannon',
    tokenDigest: digest('ddcc'),
    createdAt: at(3),
  });
  const dave = aUser({ email: 'dave@example.com', lastName: 'Knuth', roleId: editors.id, createdAt: at(4) });
  for (const user of [dave, bob, carol, ada]) await users.save(user);
  const aPermission = (props: Partial<PermissionProps>) =>
    new Permission({
      id: randomUUID(),
      role: editors.id,
      collection: 'articles',
      action: 'read',
      permissions: null,
      validation: null,
      presets: null,
      fields: ['*'],
      ...props,
    });
  const articlesRead = aPermission({ permissions: { status: { _eq: 'published' } } });
  const articlesCreate = aPermission({ action: 'create', fields: null });
  const cargosPublic = aPermission({ role: null, collection: 'cargos', fields: ['id', 'name'] });
  for (const permission of [cargosPublic, articlesRead, articlesCreate]) await permissions.save(permission);
  return {
    users: { ada: ada.id, bob: bob.id, carol: carol.id, dave: dave.id },
    roles: { admins: admins.id, editors: editors.id, viewers: viewers.id },
    permissions: {
      articlesRead: articlesRead.id,
      articlesCreate: articlesCreate.id,
      cargosPublic: cargosPublic.id,
    },
  };
}

export function systemQueryContract(target: PersistenceTarget) {
  const test = skippableSuite<Context>(`System list queries on ${target.name}`, target.skip);
  test.before.each(async (context) => {
    context.persistence = await target.fresh();
    context.seeded = await seed(context.persistence);
  });
  test.after(() => target.dispose());

  test('users: no parameter lists them all in creation order', async ({ persistence, seeded }) => {
    const { ada, bob, carol, dave } = seeded.users;
    assert.equal(ids(await persistence.users.query(query({}, USERS_COLLECTION))), [ada, bob, carol, dave]);
  });

  test('users: filters on values, nulls, roles and the token only by presence', async ({
    persistence: { users },
    seeded,
  }) => {
    const { ada, bob, carol, dave } = seeded.users;
    const find = async (filter: unknown) =>
      ids(await users.query(query({ filter: JSON.stringify(filter) }, USERS_COLLECTION)));
    assert.equal(await find({ status: { _eq: 'suspended' } }), [bob]);
    assert.equal(await find({ token: { _nnull: true } }), [ada, carol]);
    assert.equal(await find({ token: { _null: true } }), [bob, dave]);
    assert.equal(await find({ role: { _null: true } }), [carol]);
    assert.equal(await find({ role: { _eq: seeded.roles.editors } }), [bob, dave]);
    assert.equal(await find({ last_name: { _in: ['Knuth', 'Shannon'] } }), [carol, dave]);
    assert.equal(
      await find({ _or: [{ first_name: { _icontains: 'A' } }, { last_name: { _starts_with: 'Kn' } }] }),
      [ada, carol, dave],
    );
    assert.equal(await find({ email: { _ends_with: '@example.org' } }), []);
  });

  test('users: $CURRENT_USER is the caller', async ({ persistence: { users }, seeded }) => {
    const caller = { ...SYSTEM_ACCOUNTABILITY, user: seeded.users.bob };
    const filter = JSON.stringify({ id: { _eq: '$CURRENT_USER' } });
    assert.equal(ids(await users.query(query({ filter }, USERS_COLLECTION, caller))), [seeded.users.bob]);
  });

  test('users: sort with nulls last ascending, first descending, ties in list order', async ({
    persistence: { users },
    seeded,
  }) => {
    const { ada, bob, carol, dave } = seeded.users;
    const sorted = async (sort: string) => ids(await users.query(query({ sort }, USERS_COLLECTION)));
    assert.equal(await sorted('first_name'), [ada, bob, carol, dave]);
    assert.equal(await sorted('-first_name'), [dave, carol, bob, ada]);
    assert.equal(await sorted('status'), [ada, carol, dave, bob]);
    assert.equal(await sorted('-status,-email'), [bob, dave, carol, ada]);
  });

  test('users: limit, offset, page and the counts', async ({ persistence: { users }, seeded }) => {
    const { bob, carol, dave } = seeded.users;
    assert.equal(ids(await users.query(query({ limit: '2', offset: '1' }, USERS_COLLECTION))), [bob, carol]);
    assert.equal(ids(await users.query(query({ limit: '3', page: '2' }, USERS_COLLECTION))), [dave]);
    const filter = JSON.stringify({ status: { _eq: 'active' } });
    const counted = await users.query(query({ filter, meta: '*', limit: '1' }, USERS_COLLECTION));
    assert.is(counted.records.length, 1);
    assert.is(counted.totalCount, 4);
    assert.is(counted.filterCount, 3);
    const beyond = await users.query(query({ filter, meta: 'filter_count', offset: '10' }, USERS_COLLECTION));
    assert.equal(beyond.records, []);
    assert.is(beyond.filterCount, 3);
    assert.is(beyond.totalCount, undefined);
    assert.is(
      (await users.query(query({ limit: '0', meta: 'total_count' }, USERS_COLLECTION))).totalCount,
      4,
    );
  });

  test('users: search covers the text fields, never the token', async ({
    persistence: { users },
    seeded,
  }) => {
    const { ada, bob, carol, dave } = seeded.users;
    const search = async (term: string) => ids(await users.query(query({ search: term }, USERS_COLLECTION)));
    assert.equal(await search('KNU'), [dave]);
    assert.equal(await search('example.com'), [ada, bob, carol, dave]);
    assert.equal(await search('suspend'), [bob]);
    assert.equal(await search('ffee'), []);
    assert.equal(await search('ddcc'), []);
  });

  test('users: the records come back whole', async ({ persistence: { users }, seeded }) => {
    const filter = JSON.stringify({ id: { _eq: seeded.users.ada } });
    const [ada] = (await users.query(query({ filter }, USERS_COLLECTION))).records;
    assert.equal(ada, await users.findById(seeded.users.ada));
  });

  test('roles: filter, sort, search and counts', async ({ persistence: { roles }, seeded }) => {
    const { admins, editors, viewers } = seeded.roles;
    const list = async (raw: RawItemQuery) => ids(await roles.query(query(raw, ROLES_COLLECTION)));
    assert.equal(await list({}), [admins, editors, viewers]);
    assert.equal(await list({ filter: '{"admin_access":{"_eq":true}}' }), [admins]);
    assert.equal(await list({ filter: '{"description":{"_null":true}}' }), [viewers]);
    assert.equal(await list({ sort: '-name' }), [viewers, editors, admins]);
    assert.equal(await list({ sort: '-admin_access' }), [admins, editors, viewers]);
    assert.equal(await list({ search: 'ARTICLE' }), [editors]);
    assert.equal(await list({ search: 'iew' }), [viewers]);
    const page = await roles.query(query({ limit: '1', offset: '1', meta: '*' }, ROLES_COLLECTION));
    assert.equal(ids(page), [editors]);
    assert.is(page.totalCount, 3);
    assert.is(page.filterCount, 3);
    assert.equal(page.records[0], await roles.findById(editors));
  });

  test('permissions: filter on json values, nulls and roles; sort; search', async ({
    persistence: { permissions },
    seeded,
  }) => {
    const { articlesRead, articlesCreate, cargosPublic } = seeded.permissions;
    const list = async (raw: RawItemQuery) =>
      ids(await permissions.query(query(raw, PERMISSIONS_COLLECTION)));
    assert.equal(await list({}), [articlesCreate, articlesRead, cargosPublic]);
    assert.equal(await list({ filter: '{"collection":{"_eq":"articles"}}' }), [articlesCreate, articlesRead]);
    assert.equal(await list({ filter: '{"role":{"_null":true}}' }), [cargosPublic]);
    assert.equal(await list({ filter: '{"fields":{"_null":true}}' }), [articlesCreate]);
    assert.equal(await list({ filter: '{"fields":{"_eq":["id","name"]}}' }), [cargosPublic]);
    assert.equal(
      await list({ filter: JSON.stringify({ permissions: { _eq: { status: { _eq: 'published' } } } }) }),
      [articlesRead],
    );
    assert.equal(await list({ sort: '-action' }), [articlesRead, cargosPublic, articlesCreate]);
    assert.equal(await list({ search: 'CARG' }), [cargosPublic]);
    assert.equal(await list({ search: 'creat' }), [articlesCreate]);
    const [found] = (await permissions.query(query({ search: 'carg' }, PERMISSIONS_COLLECTION))).records;
    assert.equal(found, await permissions.findById(cargosPublic));
  });

  return test;
}
