import {
  acceptUserInvite,
  authentication,
  createDirectus,
  createPermission,
  createPermissions,
  createPolicy,
  createRoles,
  createUsers,
  deletePermissions,
  deleteRoles,
  deleteUsers,
  disableTwoFactor,
  downloadFilesZip,
  downloadFolderZip,
  enableTwoFactor,
  generateTwoFactorSecret,
  graphql,
  importFile,
  inviteUser,
  login,
  logout,
  passwordRequest,
  passwordReset,
  randomString,
  readComments,
  readContentVersions,
  readDashboards,
  readExtensions,
  readFlows,
  readFolders,
  readGraphqlSdl,
  readItemPermissions,
  readNotifications,
  readPolicies,
  readPolicyGlobals,
  readPresets,
  readProviders,
  readRolesMe,
  readSettings,
  readShares,
  readSingleton,
  readTranslations,
  readUserPermissions,
  refresh,
  registerUser,
  registerUserVerify,
  rest,
  schemaDiff,
  schemaSnapshot,
  staticToken,
  triggerFlow,
  updateCollectionsBatch,
  updateField,
  updateFields,
  updatePermissions,
  updatePermissionsBatch,
  updateRoles,
  updateRolesBatch,
  updateSingleton,
  updateUsers,
  updateUsersBatch,
  utilitySort,
  utilsExport,
  utilsImportBatch,
} from '@directus/sdk';
import * as assert from 'uvu/assert';
import { backends } from '../support/databases.ts';
import { suitePerBackend } from '../support/suite-per-backend.ts';
import { ADMIN_STATIC_TOKEN, ID, type Schema } from './cargos-scenario.ts';
import { sdkError } from './sdk-clients.ts';
import { type SdkScenario, startSdkScenario, stopSdkScenario } from './sdk-scenario.ts';

type Context = SdkScenario;
type Admin = SdkScenario['admin'];

const USER = { email: 'batch@example.com', password: 'password-123', role: null };
const MISSING = ID.missing;

/**
 * The `@directus/sdk` functions for what datagate does not offer (docs/api.md §1, "`@directus/sdk` against
 * this profile"), called by an admin: each is refused with an error the SDK parses (`isDirectusError`,
 * `errors[0].extensions.code`) and writes nothing. Routes and bodies are judged before any storage is
 * touched, so one backend answers for all.
 */
const NOT_OFFERED: Array<[string, (admin: Admin) => Promise<unknown>, number, string]> = [
  // Authentication beyond e-mail and password.
  ['passwordRequest', (admin) => admin.request(passwordRequest('operator@example.com')), 404, 'NOT_FOUND'],
  ['passwordReset', (admin) => admin.request(passwordReset('token', 'a-new-password')), 404, 'NOT_FOUND'],
  ['readProviders', (admin) => admin.request(readProviders()), 404, 'NOT_FOUND'],
  ['inviteUser', (admin) => admin.request(inviteUser('new@example.com', MISSING)), 404, 'NOT_FOUND'],
  ['acceptUserInvite', (admin) => admin.request(acceptUserInvite('token', 'a-password')), 404, 'NOT_FOUND'],
  ['registerUser', (admin) => admin.request(registerUser('new@example.com', 'a-password')), 404, 'NOT_FOUND'],
  ['registerUserVerify', (admin) => admin.request(registerUserVerify('token')), 404, 'NOT_FOUND'],
  ['generateTwoFactorSecret', (admin) => admin.request(generateTwoFactorSecret('pw')), 404, 'NOT_FOUND'],
  ['enableTwoFactor', (admin) => admin.request(enableTwoFactor('secret', '123456')), 404, 'NOT_FOUND'],
  ['disableTwoFactor', (admin) => admin.request(disableTwoFactor('123456')), 404, 'NOT_FOUND'],
  // Batch writes of the system collections: one record per request.
  ['createUsers', (admin) => admin.request(createUsers([USER])), 400, 'INVALID_PAYLOAD'],
  [
    'updateUsers',
    (admin) => admin.request(updateUsers([MISSING], { first_name: 'x' })),
    405,
    'METHOD_NOT_ALLOWED',
  ],
  [
    'updateUsersBatch',
    (admin) => admin.request(updateUsersBatch([{ id: MISSING }])),
    405,
    'METHOD_NOT_ALLOWED',
  ],
  ['deleteUsers', (admin) => admin.request(deleteUsers([MISSING])), 405, 'METHOD_NOT_ALLOWED'],
  ['createRoles', (admin) => admin.request(createRoles([{ name: 'Batch' }])), 400, 'INVALID_PAYLOAD'],
  ['updateRoles', (admin) => admin.request(updateRoles([MISSING], { name: 'x' })), 405, 'METHOD_NOT_ALLOWED'],
  [
    'updateRolesBatch',
    (admin) => admin.request(updateRolesBatch([{ id: MISSING }])),
    405,
    'METHOD_NOT_ALLOWED',
  ],
  ['deleteRoles', (admin) => admin.request(deleteRoles([MISSING])), 405, 'METHOD_NOT_ALLOWED'],
  [
    'createPermissions',
    (admin) =>
      admin.request(createPermissions([{ role: null, collection: 'cargos', action: 'read' }] as never)),
    400,
    'INVALID_PAYLOAD',
  ],
  [
    'updatePermissions',
    (admin) => admin.request(updatePermissions([MISSING] as never, {})),
    405,
    'METHOD_NOT_ALLOWED',
  ],
  [
    'updatePermissionsBatch',
    (admin) => admin.request(updatePermissionsBatch([{ id: MISSING }] as never)),
    405,
    'METHOD_NOT_ALLOWED',
  ],
  [
    'deletePermissions',
    (admin) => admin.request(deletePermissions([MISSING] as never)),
    405,
    'METHOD_NOT_ALLOWED',
  ],
  // Directus 11's policies: datagate's permissions belong to a role, as Directus 10's did.
  [
    'createPermission with a policy',
    (admin) =>
      admin.request(createPermission({ policy: MISSING, collection: 'cargos', action: 'read' } as never)),
    400,
    'INVALID_PAYLOAD',
  ],
  ['readPolicies', (admin) => admin.request(readPolicies()), 404, 'NOT_FOUND'],
  ['createPolicy', (admin) => admin.request(createPolicy({ name: 'p' } as never)), 404, 'NOT_FOUND'],
  ['readPolicyGlobals', (admin) => admin.request(readPolicyGlobals()), 404, 'NOT_FOUND'],
  ['readRolesMe', (admin) => admin.request(readRolesMe()), 404, 'NOT_FOUND'],
  ['readUserPermissions', (admin) => admin.request(readUserPermissions()), 404, 'NOT_FOUND'],
  ['readItemPermissions', (admin) => admin.request(readItemPermissions('cargos', ID.fish)), 404, 'NOT_FOUND'],
  // Items: collections are never singletons.
  [
    'updateSingleton',
    (admin) => admin.request(updateSingleton('cargos' as never, { description: 'x' })),
    400,
    'INVALID_PAYLOAD',
  ],
  // Schema: fields are added and dropped, not altered (updateField takes a field's meta alone, docs/api.md
  // §7); collections one at a time.
  [
    'updateField',
    (admin) =>
      admin.request(updateField('cargos', 'description', { schema: { is_nullable: false } } as never)),
    400,
    'INVALID_PAYLOAD',
  ],
  [
    'updateCollectionsBatch',
    (admin) => admin.request(updateCollectionsBatch([{ collection: 'cargos', meta: {} }] as never)),
    405,
    'METHOD_NOT_ALLOWED',
  ],
  ['updateFields', (admin) => admin.request(updateFields('cargos', [] as never)), 405, 'METHOD_NOT_ALLOWED'],
  ['schemaSnapshot', (admin) => admin.request(schemaSnapshot()), 404, 'NOT_FOUND'],
  ['schemaDiff', (admin) => admin.request(schemaDiff({} as never)), 404, 'NOT_FOUND'],
  // Files beyond uploads and assets.
  ['importFile', (admin) => admin.request(importFile('https://example.com/a.png')), 404, 'NOT_FOUND'],
  ['downloadFilesZip', (admin) => admin.request(downloadFilesZip([MISSING])), 404, 'NOT_FOUND'],
  ['downloadFolderZip', (admin) => admin.request(downloadFolderZip(MISSING)), 404, 'NOT_FOUND'],
  ['readFolders', (admin) => admin.request(readFolders()), 404, 'NOT_FOUND'],
  // Utilities: exports are `readItems(…, { export })`; imports name their collection.
  ['utilsExport', (admin) => admin.request(utilsExport('cargos', 'csv', {}, {})), 404, 'NOT_FOUND'],
  ['utilsImportBatch', (admin) => admin.request(utilsImportBatch(new FormData())), 404, 'NOT_FOUND'],
  ['utilitySort', (admin) => admin.request(utilitySort('cargos', ID.fish, ID.bananas)), 404, 'NOT_FOUND'],
  ['randomString', (admin) => admin.request(randomString()), 404, 'NOT_FOUND'],
  ['readGraphqlSdl', (admin) => admin.request(readGraphqlSdl()), 404, 'NOT_FOUND'],
  // The rest of Directus's modules.
  ['readComments', (admin) => admin.request(readComments()), 404, 'NOT_FOUND'],
  ['readSettings', (admin) => admin.request(readSettings()), 404, 'NOT_FOUND'],
  ['readDashboards', (admin) => admin.request(readDashboards()), 404, 'NOT_FOUND'],
  ['readFlows', (admin) => admin.request(readFlows()), 404, 'NOT_FOUND'],
  ['readNotifications', (admin) => admin.request(readNotifications()), 404, 'NOT_FOUND'],
  ['readPresets', (admin) => admin.request(readPresets()), 404, 'NOT_FOUND'],
  ['readShares', (admin) => admin.request(readShares()), 404, 'NOT_FOUND'],
  ['readTranslations', (admin) => admin.request(readTranslations()), 404, 'NOT_FOUND'],
  ['readContentVersions', (admin) => admin.request(readContentVersions()), 404, 'NOT_FOUND'],
  ['readExtensions', (admin) => admin.request(readExtensions()), 404, 'NOT_FOUND'],
  ['triggerFlow', (admin) => admin.request(triggerFlow('POST', MISSING, {})), 404, 'NOT_FOUND'],
];

for (const [target, test] of suitePerBackend<Context>(
  backends().slice(0, 1),
  (backend) => `@directus/sdk functions datagate does not offer, on ${backend}`,
)) {
  test.before(async (context) => {
    Object.assign(context, await startSdkScenario(target));
  });
  test.after((context) => stopSdkScenario(context, target));

  test('each is refused with an error the SDK parses, and writes nothing', async ({ admin, scenario }) => {
    const users = await scenario.app.request('GET', '/users?fields=id', { token: ADMIN_STATIC_TOKEN });
    const cargos = await scenario.stored();
    for (const [name, call, status, code] of NOT_OFFERED) {
      const error = await sdkError(call(admin), status, code).catch((failure: Error) => {
        throw new Error(`${name}: ${failure.message}`);
      });
      if (status === 405) assert.ok(error.response.headers.get('allow'), `${name}: Allow`);
    }
    assert.equal(
      (await scenario.app.request('GET', '/users?fields=id', { token: ADMIN_STATIC_TOKEN })).body,
      users.body,
    );
    assert.equal(await scenario.stored(), cargos);
  });

  test('readSingleton reads the list: a collection is never a singleton', async ({ admin }) => {
    const answer = await admin.request(readSingleton('cargos' as never, { fields: ['id'] } as never));
    assert.ok(Array.isArray(answer), JSON.stringify(answer));
  });

  test('authentication in cookie or session mode is refused at login, naming mode', async ({ scenario }) => {
    const { email, password } = scenario.operator;
    for (const mode of ['cookie', 'session'] as const) {
      const client = createDirectus<Schema>(scenario.app.url).with(rest()).with(authentication(mode));
      const error = await sdkError(client.login({ email, password }), 400, 'INVALID_PAYLOAD');
      assert.is(error.errors[0]?.extensions.field, 'mode', mode);
      // The login, refresh and logout commands in that mode send no refresh token in the body: the mode,
      // not the missing token, is named as the cause.
      const anonymous = createDirectus<Schema>(scenario.app.url).with(rest());
      await sdkError(anonymous.request(login({ email, password }, { mode })), 400, 'INVALID_PAYLOAD');
      for (const command of [refresh({ mode }), logout({ mode })]) {
        const refused = await sdkError(anonymous.request(command), 400, 'INVALID_PAYLOAD');
        assert.is(refused.errors[0]?.extensions.field, 'mode', mode);
      }
    }
  });

  test('graphql() finds no GraphQL endpoint', async ({ scenario }) => {
    const client = createDirectus<Schema>(scenario.app.url)
      .with(staticToken(ADMIN_STATIC_TOKEN))
      .with(graphql());
    await sdkError(client.query('{ cargos { id } }'), 404, 'NOT_FOUND');
  });

  test.run();
}
