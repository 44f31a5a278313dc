import {
  readCollections,
  readFields,
  readFieldsByCollection,
  readMe,
  readPermission,
  readPermissions,
  readRole,
  readRoles,
  readUser,
  readUsers,
} from '@directus/sdk';
import * as assert from 'uvu/assert';
import { backends } from '../support/databases.ts';
import { suitePerBackend } from '../support/suite-per-backend.ts';
import { ADMIN_STATIC_TOKEN } from './cargos-scenario.ts';
import { sdkError } from './sdk-clients.ts';
import { type SdkScenario, startSdkScenario, stopSdkScenario } from './sdk-scenario.ts';

type Context = SdkScenario;

for (const [target, reads] of suitePerBackend<Context>(
  backends(),
  (backend) => `@directus/sdk system collection queries on ${backend}`,
)) {
  reads.before(async (context) => {
    Object.assign(context, await startSdkScenario(target));
    await context.scenario.app.createUser({
      email: 'suspended@example.com',
      status: 'suspended',
      last_name: 'Away',
    });
  });
  reads.after((context) => stopSdkScenario(context, target));

  reads('readUsers with filter, fields, sort and limit', async ({ admin, scenario }) => {
    const suspended = await admin.request(
      readUsers({ filter: { status: { _eq: 'suspended' } }, fields: ['email', 'last_name'] }),
    );
    assert.equal(suspended, [{ email: 'suspended@example.com', last_name: 'Away' }]);

    const sorted = await admin.request(readUsers({ fields: ['email'], sort: ['-email'], limit: 2 }));
    assert.equal(sorted, [{ email: 'suspended@example.com' }, { email: 'operator@example.com' }]);

    const withToken = await admin.request(
      readUsers({ filter: { token: { _nnull: true } }, fields: ['id', 'token'] }),
    );
    assert.equal(withToken, [{ id: scenario.admin.id, token: '**********' }]);

    const searched = await admin.request(readUsers({ search: 'operator', fields: ['email'] }));
    assert.equal(searched, [{ email: 'operator@example.com' }]);

    const paged = await admin.request(readUsers({ fields: ['email'], sort: ['email'], limit: 1, page: 2 }));
    assert.equal(paged, [{ email: 'operator@example.com' }]);
  });

  reads('readUsers refuses a secret as it refuses an unknown field', async ({ admin }) => {
    await sdkError(admin.request(readUsers({ fields: ['password_hash' as 'email'] })), 400, 'INVALID_QUERY');
    await sdkError(
      admin.request(readUsers({ filter: { token: { _eq: ADMIN_STATIC_TOKEN } } })),
      400,
      'INVALID_QUERY',
    );
    await sdkError(admin.request(readUsers({ sort: ['token'] })), 400, 'INVALID_QUERY');
  });

  reads('readUser and readMe take fields', async ({ admin, operator, scenario }) => {
    const one = await admin.request(readUser(scenario.operator.id, { fields: ['email', 'status'] }));
    assert.equal(one, { email: 'operator@example.com', status: 'active' });
    const me = await operator.request(readMe({ fields: ['email'] }));
    assert.equal(me, { email: 'operator@example.com' });
  });

  reads(
    'reads of one record refuse filter, search and alias instead of answering the record regardless',
    async ({ admin, operator, scenario }) => {
      const [permission] = await admin.request(readPermissions({ limit: 1, fields: ['id'] }));
      const [role] = await admin.request(readRoles({ limit: 1, fields: ['id'] }));
      const reads: Array<[string, (query: Record<string, unknown>) => Promise<unknown>]> = [
        ['readUser', (query) => admin.request(readUser(scenario.operator.id, query))],
        ['readMe', (query) => operator.request(readMe(query))],
        ['readRole', (query) => admin.request(readRole(role!.id, query))],
        ['readPermission', (query) => admin.request(readPermission(permission!.id, query))],
      ];
      for (const [name, read] of reads) {
        for (const [parameter, query] of [
          ['filter', { filter: { email: { _eq: 'nobody@example.com' } } }],
          ['search', { search: 'nobody' }],
          ['alias', { alias: { mail: 'email' } }],
        ] as const) {
          const error = await sdkError(read(query), 400, 'INVALID_QUERY');
          assert.is(error.errors[0]?.extensions.field, parameter, `${name} ${parameter}`);
        }
      }
    },
  );

  reads('readRoles and readRole with filter and fields', async ({ admin }) => {
    const operators = await admin.request(
      readRoles({ filter: { name: { _eq: 'Operator' } }, fields: ['id', 'name'] }),
    );
    assert.is(operators.length, 1);
    assert.equal(Object.keys(operators[0]!), ['id', 'name']);
    const sorted = await admin.request(readRoles({ fields: ['name'], sort: ['-name'] }));
    assert.equal(sorted, [{ name: 'Operator' }, { name: 'Administrator' }]);
    const role = await admin.request(readRole(operators[0]!.id, { fields: ['name'] }));
    assert.equal(role, { name: 'Operator' });
  });

  reads('readPermissions with a filter', async ({ admin }) => {
    const reads = await admin.request(
      readPermissions({ filter: { action: { _eq: 'read' } }, fields: ['collection', 'action'] }),
    );
    assert.equal(reads, [{ collection: 'cargos', action: 'read' }]);
  });

  reads('readCollections, readFields and readFieldsByCollection answer the schema', async ({ admin }) => {
    const collections = (await admin.request(readCollections())).map(({ collection }) => collection);
    assert.ok(collections.includes('cargos'), collections.join());
    const all = await admin.request(readFields());
    const ofCargos = await admin.request(readFieldsByCollection('cargos'));
    assert.equal(
      all.filter((field) => field.collection === 'cargos'),
      ofCargos,
    );
    assert.ok(ofCargos.some((field) => field.field === 'temperature'));
  });

  reads('a non-admin is refused whatever the query', async ({ operator }) => {
    await sdkError(operator.request(readUsers({ filter: { status: { _eq: 'active' } } })), 403, 'FORBIDDEN');
    await sdkError(operator.request(readRoles({ fields: ['name'] })), 403, 'FORBIDDEN');
    await sdkError(operator.request(readFields()), 403, 'FORBIDDEN');
  });

  reads.run();
}
