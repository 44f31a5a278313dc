import { randomUUID } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { GetUserHandler } from '../../src/application/users/get-user.ts';
import { ListUsersHandler } from '../../src/application/users/list-users.ts';
import { RevokeUserTokensHandler } from '../../src/application/users/revoke-user-tokens.ts';
import { SetStaticTokenHandler } from '../../src/application/users/set-static-token.ts';
import { MASKED_TOKEN } from '../../src/application/users/user-view.ts';
import { PUBLIC_ACCOUNTABILITY, SYSTEM_ACCOUNTABILITY } from '../../src/domain/accountability.ts';
import { authFixture, rejectsWith } from '../support/auth-fixture.ts';

const TOKEN = 'x'.repeat(32);

test('administration needs an admin: anonymous callers are UNAUTHENTICATED, others FORBIDDEN', async () => {
  const f = authFixture();
  const user = await f.user();
  const member = { user: user.id, role: user.role, admin: false, session: null };
  const list = new ListUsersHandler(f.persistence.users);
  await rejectsWith(list.execute(PUBLIC_ACCOUNTABILITY), 'UNAUTHENTICATED');
  await rejectsWith(list.execute(member), 'FORBIDDEN');
  await rejectsWith(
    f.createUser.execute(member, { email: 'x@example.com', password: 'password1', role: null }),
    'FORBIDDEN',
  );
  assert.is((await list.execute(SYSTEM_ACCOUNTABILITY)).length, 1);
});

test('a user is shown without password and with the static token masked', async () => {
  const f = authFixture();
  const created = await f.user({ token: TOKEN });
  const shown = await new GetUserHandler(f.persistence.users, { limitDefault: 100, limitMax: 1000 }).execute(
    SYSTEM_ACCOUNTABILITY,
    {
      id: created.id,
    },
  );
  assert.is(shown.token, MASKED_TOKEN);
  assert.not.ok('password' in shown || 'passwordHash' in shown || 'password_hash' in shown);
  const cleared = await f.updateUser.execute(SYSTEM_ACCOUNTABILITY, {
    id: created.id,
    changes: { token: null },
  });
  assert.is(cleared.token, null);
});

test('the static token is stored as a digest, never as given', async () => {
  const f = authFixture();
  const created = await f.user({ token: TOKEN });
  const stored = (await f.persistence.users.findById(created.id))!;
  assert.is.not(stored.tokenDigest, TOKEN);
  assert.match(stored.tokenDigest!, /^[0-9a-f]{64}$/);
});

test('new users are checked: e-mail shape, password length, role existence, token length', async () => {
  const f = authFixture();
  const base = { email: 'new@example.com', password: 'long enough', role: null };
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ email: 'nope' }, 'email'],
    [{ password: 'short' }, 'password'],
    [{ role: '00000000-0000-4000-8000-000000000000' }, 'role'],
    [{ token: 'too-short' }, 'token'],
  ];
  for (const [change, field] of cases) {
    try {
      await f.createUser.execute(SYSTEM_ACCOUNTABILITY, { ...base, ...change });
      assert.unreachable(`accepted ${field}`);
    } catch (error) {
      assert.is((error as { code: string }).code, 'FAILED_VALIDATION');
      assert.is((error as { extensions: { field: string } }).extensions.field, field);
    }
  }
  assert.is((await f.persistence.users.list()).length, 0, 'nothing was written');
});

test('two users cannot share an e-mail, whatever its case', async () => {
  const f = authFixture();
  await f.user();
  await rejectsWith(
    f.createUser.execute(SYSTEM_ACCOUNTABILITY, {
      email: 'ADA@example.com',
      password: 'long enough',
      role: null,
    }),
    'RECORD_NOT_UNIQUE',
  );
});

test('updating or deleting a missing user is NOT_FOUND', async () => {
  const f = authFixture();
  const id = '00000000-0000-4000-8000-000000000000';
  await rejectsWith(
    f.updateUser.execute(SYSTEM_ACCOUNTABILITY, { id: id, changes: { first_name: 'x' } }),
    'NOT_FOUND',
  );
  await rejectsWith(f.deleteUser.execute(SYSTEM_ACCOUNTABILITY, { id: id }), 'NOT_FOUND');
});

test('the CLI sets a static token, generating one when none is given', async () => {
  const f = authFixture();
  await f.user();
  const setToken = new SetStaticTokenHandler(f.persistence.users);
  const generated = await setToken.execute(null, { email: 'Ada@example.com' });
  assert.ok(generated.length >= 32);
  assert.is((await f.resolve.execute(null, { token: generated })).admin, false);
  await rejectsWith(
    setToken.execute(null, { email: 'ada@example.com', token: 'short' }),
    'FAILED_VALIDATION',
  );
  await rejectsWith(setToken.execute(null, { email: 'nobody@example.com' }), 'NOT_FOUND');
});

test('revoking a user tokens ends its sessions and removes its static token, and needs an admin', async () => {
  const f = authFixture();
  const created = await f.user({ token: TOKEN });
  const revoke = new RevokeUserTokensHandler(f.persistence.users, f.persistence.refreshTokens, f.clock);
  const member = { user: created.id, role: created.role, admin: false, session: null };
  await rejectsWith(revoke.execute(member, { id: created.id }), 'FORBIDDEN');
  const pair = await f.login.execute({ email: 'ada@example.com', password: 'correct horse' });
  assert.equal(await revoke.execute(SYSTEM_ACCOUNTABILITY, { id: created.id }), {
    email: 'ada@example.com',
    hadStaticToken: true,
  });
  await rejectsWith(f.refresh.execute(null, { refreshToken: pair.refreshToken }), 'INVALID_TOKEN');
  assert.is((await f.persistence.users.findById(created.id))!.tokenDigest, null);
  assert.equal(await revoke.execute(SYSTEM_ACCOUNTABILITY, { id: created.id }), {
    email: 'ada@example.com',
    hadStaticToken: false,
  });
  await rejectsWith(revoke.execute(SYSTEM_ACCOUNTABILITY, { id: randomUUID() }), 'NOT_FOUND');
});

test.run();
