import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { requireAdmin, requireUser } from '../../src/application/access.ts';
import { PreviewRoleHandler } from '../../src/application/roles/preview-role.ts';
import { type Accountability, SYSTEM_ACCOUNTABILITY } from '../../src/domain/accountability.ts';
import { refusal } from '../../src/domain/permissions/refusal.ts';
import { authFixture, rejectsWith } from '../support/auth-fixture.ts';

const EVERYTHING = {
  filter: null,
  sort: [],
  limit: null,
  offset: 0,
  count: { total: false, filtered: false },
} as const;

/** `allowed`, or the error's code and reason: `FORBIDDEN PREVIEW`. */
async function outcome(run: () => unknown): Promise<string> {
  try {
    await run();
    return 'allowed';
  } catch (error) {
    const { code, extensions } = error as { code: string; extensions: { reason?: string } };
    return `${code} ${extensions.reason ?? ''}`.trim();
  }
}

/** The auth fixture, an admin logged in, a plain role to preview, and the handler over the fakes. */
async function previewFixture(overrides: Parameters<typeof authFixture>[0] = {}) {
  const f = authFixture(overrides);
  const { persistence, accessTokens, clock } = f;
  await f.bootstrap.execute(null, { adminEmail: 'root@example.com', adminPassword: 'root password 1' });
  const pair = await f.login.execute({ email: 'root@example.com', password: 'root password 1' });
  const admin = await f.resolve.execute(null, { token: pair.accessToken });
  const operators = await f.createRole.execute(SYSTEM_ACCOUNTABILITY, { name: 'Operators' });
  const handler = new PreviewRoleHandler(persistence.roles, accessTokens, persistence.activity, clock);
  const activity = async () => (await persistence.activity.activity(EVERYTHING, 'all')).records;
  return { ...f, admin, adminPair: pair, operators, handler, activity };
}

test('an admin gets a token that resolves to the role, with no user and no session', async () => {
  const f = await previewFixture();
  const grant = await f.handler.execute(f.admin, { role: f.operators.id });
  assert.equal(Object.keys(grant).sort(), ['accessToken', 'expires']);
  assert.is(grant.expires, Math.floor((f.clock.now().getTime() + f.settings.accessTokenTtlMs) / 1000) * 1000);
  assert.equal(await f.resolve.execute(null, { token: grant.accessToken }), {
    user: null,
    role: f.operators.id,
    admin: false,
    session: null,
    preview: { issuer: f.admin.user! },
  });
});

test('the issuance is recorded as activity of the admin on the role', async () => {
  const f = await previewFixture();
  await f.handler.execute(f.admin, { role: f.operators.id });
  await f.handler.execute(f.admin, { role: null });
  const previews = (await f.activity()).filter((entry) => entry.action === 'preview');
  assert.equal(
    previews.map(({ user, collection, item }) => ({ user, collection, item })),
    [
      { user: f.admin.user, collection: 'datagate_roles', item: f.operators.id },
      { user: f.admin.user, collection: 'datagate_roles', item: 'public' },
    ],
  );
});

test('a preview of the public role resolves to the public caller, marked as a preview', async () => {
  const f = await previewFixture();
  const grant = await f.handler.execute(f.admin, { role: null });
  const caller = await f.resolve.execute(null, { token: grant.accessToken });
  assert.equal(caller, {
    user: null,
    role: null,
    admin: false,
    session: null,
    preview: { issuer: f.admin.user! },
  });
});

test('only an admin with a user may preview, and only a role that exists', async () => {
  const f = await previewFixture();
  const member = await f.user({ email: 'member@example.com' });
  const memberCaller = await f.resolve.execute(null, {
    token: (await f.login.execute({ email: 'member@example.com', password: 'correct horse' })).accessToken,
  });
  assert.is(memberCaller.user, member.id);
  await rejectsWith(f.handler.execute(memberCaller, { role: f.operators.id }), 'FORBIDDEN');
  await rejectsWith(
    f.handler.execute(await f.resolve.execute(null, { token: null }), { role: null }),
    'UNAUTHENTICATED',
  );
  await rejectsWith(f.handler.execute(SYSTEM_ACCOUNTABILITY, { role: null }), 'UNAUTHENTICATED');
  await rejectsWith(
    f.handler.execute(f.admin, { role: '00000000-0000-4000-8000-000000000000' }),
    'NOT_FOUND',
  );
  assert.is((await f.activity()).filter((entry) => entry.action === 'preview').length, 0);
});

test('a preview, even of an admin role, cannot mint another', async () => {
  const f = await previewFixture();
  const grant = await f.handler.execute(f.admin, { role: f.admin.role });
  const preview = await f.resolve.execute(null, { token: grant.accessToken });
  assert.is(preview.admin, true);
  assert.is(await outcome(() => f.handler.execute(preview, { role: f.operators.id })), 'FORBIDDEN PREVIEW');
});

test('the token dies with its issuer’s admin rights: demoted, suspended or deleted', async () => {
  const demote = async (f: Awaited<ReturnType<typeof previewFixture>>) => {
    const other = await f.createRole.execute(SYSTEM_ACCOUNTABILITY, { name: 'Other' });
    await f.updateUser.execute(SYSTEM_ACCOUNTABILITY, { id: f.admin.user!, changes: { role: other.id } });
  };
  const revokeAccess = (f: Awaited<ReturnType<typeof previewFixture>>) =>
    f.updateRole.execute(SYSTEM_ACCOUNTABILITY, { id: f.admin.role!, changes: { admin_access: false } });
  for (const [what, change] of [
    ['demoted', demote],
    ['role loses admin access', revokeAccess],
    [
      'suspended',
      (f: Awaited<ReturnType<typeof previewFixture>>) =>
        f.updateUser.execute(SYSTEM_ACCOUNTABILITY, { id: f.admin.user!, changes: { status: 'suspended' } }),
    ],
    [
      'deleted',
      (f: Awaited<ReturnType<typeof previewFixture>>) =>
        f.deleteUser.execute(SYSTEM_ACCOUNTABILITY, { id: f.admin.user! }),
    ],
  ] as const) {
    const f = await previewFixture();
    // A second admin, so the last-admin guard lets the first one go.
    await f.createUser.execute(SYSTEM_ACCOUNTABILITY, {
      email: 'second@example.com',
      password: 'second password',
      role: (await f.createRole.execute(SYSTEM_ACCOUNTABILITY, { name: 'Admins', admin_access: true })).id,
    });
    const grant = await f.handler.execute(f.admin, { role: f.operators.id });
    await f.resolve.execute(null, { token: grant.accessToken });
    await change(f);
    await rejectsWith(f.resolve.execute(null, { token: grant.accessToken }), 'INVALID_TOKEN').catch(
      (error) => {
        throw new Error(`${what}: ${(error as Error).message}`);
      },
    );
  }
});

test('the token dies with its role, and follows the role’s admin access', async () => {
  const f = await previewFixture();
  const grant = await f.handler.execute(f.admin, { role: f.operators.id });
  await f.updateRole.execute(SYSTEM_ACCOUNTABILITY, { id: f.operators.id, changes: { admin_access: true } });
  assert.is((await f.resolve.execute(null, { token: grant.accessToken })).admin, true);
  await f.deleteRole.execute(SYSTEM_ACCOUNTABILITY, { id: f.operators.id });
  await rejectsWith(f.resolve.execute(null, { token: grant.accessToken }), 'INVALID_TOKEN');
});

test('the token expires as an access token does', async () => {
  const f = await previewFixture();
  const grant = await f.handler.execute(f.admin, { role: null });
  f.clock.set(new Date(grant.expires));
  await rejectsWith(f.resolve.execute(null, { token: grant.accessToken }), 'TOKEN_EXPIRED');
});

test('with sessions checked on each request, the preview ends with the issuer’s session', async () => {
  const f = await previewFixture({ checkSessionOnEachRequest: true });
  const grant = await f.handler.execute(f.admin, { role: f.operators.id });
  await f.resolve.execute(null, { token: grant.accessToken });
  await f.logout.execute(null, { refreshToken: f.adminPair.refreshToken });
  await rejectsWith(f.resolve.execute(null, { token: grant.accessToken }), 'INVALID_TOKEN');
});

test('a preview is refused what needs a user, and answered as its role’s users are', async () => {
  const f = await previewFixture();
  const operator = await f.resolve.execute(null, {
    token: (await f.handler.execute(f.admin, { role: f.operators.id })).accessToken,
  });
  const publicView = await f.resolve.execute(null, {
    token: (await f.handler.execute(f.admin, { role: null })).accessToken,
  });
  const check = (caller: Accountability) =>
    Promise.all([
      outcome(() => requireUser(caller)),
      outcome(() => requireAdmin(caller)),
      outcome(() => {
        throw refusal(caller);
      }),
    ]);
  assert.equal(await check(operator), ['FORBIDDEN PREVIEW', 'FORBIDDEN', 'FORBIDDEN']);
  assert.equal(await check(publicView), ['FORBIDDEN PREVIEW', 'UNAUTHENTICATED', 'UNAUTHENTICATED']);
});

test.run();
