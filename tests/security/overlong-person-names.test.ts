import * as assert from 'uvu/assert';
import { assertError } from '../http/scenario.ts';
import { backends, borrowed } from '../support/databases.ts';
import { suitePerBackend } from '../support/suite-per-backend.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';

/**
 * A first or last name longer than the users table holds (255 characters) was stored on memory and answered
 * 500 on PostgreSQL (`value too long for type character varying(255)`), found by the API fuzzer. It is a
 * FAILED_VALIDATION naming the field, on every backend, and nothing is stored.
 */
type Context = { app: TestApp; admin: string; member: string; memberId: string };

const LONG = 'x'.repeat(256);
/** 255 characters, each two UTF-16 units: the column counts characters. */
const LONGEST = '🚢'.repeat(255);

for (const [target, test] of suitePerBackend<Context>(
  backends(),
  (backend) => `person names longer than their column on ${backend}`,
)) {
  test.before(async (context) => {
    context.app = await startTestApp({ persistence: borrowed(await target.fresh()) });
    context.admin = (await context.app.login(await context.app.seedAdmin())).access_token;
    const member = await context.app.createUser();
    context.memberId = member.id;
    context.member = (await context.app.login(member)).access_token;
  });
  test.after(async ({ app }) => {
    await app.close();
    await target.dispose();
  });

  test('a 256-character name is refused with 400 naming it, wherever a name is written', async ({
    app,
    admin,
    member,
    memberId,
  }) => {
    const writes: Array<[string, string, string, Record<string, unknown>, string]> = [
      [
        'POST',
        '/users',
        admin,
        { email: 'long@example.com', password: 'password-123', role: null, first_name: LONG },
        'first_name',
      ],
      ['PATCH', `/users/${memberId}`, admin, { last_name: LONG }, 'last_name'],
      ['PATCH', '/users/me', member, { first_name: LONG }, 'first_name'],
    ];
    for (const [method, path, token, body, field] of writes) {
      assertError(await app.request(method, path, { token, body }), 400, 'FAILED_VALIDATION', field);
    }
    const users = await app.request('GET', '/users', { token: admin });
    assert.is((users.body as unknown[]).length, 2, 'no user was created');
    const me = await app.request('GET', '/users/me', { token: member });
    assert.equal(
      [(me.body as { first_name: unknown }).first_name, (me.body as { last_name: unknown }).last_name],
      [null, null],
    );
  });

  test('a name of 255 characters, astral ones included, is stored', async ({ app, member }) => {
    const response = await app.request('PATCH', '/users/me', { token: member, body: { last_name: LONGEST } });
    assert.is(response.status, 200, response.text);
    assert.is((response.body as { last_name: string }).last_name, LONGEST);
  });

  test.run();
}
