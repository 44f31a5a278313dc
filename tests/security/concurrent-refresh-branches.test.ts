import * as assert from 'uvu/assert';
import { digestSecret } from '../../src/application/auth/opaque-secret.ts';
import { backends, borrowed } from '../support/databases.ts';
import { suitePerBackend } from '../support/suite-per-backend.ts';
import { type SeededUser, startTestApp, type TestApp, type TokenPairBody } from '../support/test-app.ts';
import { expectError } from './attack-kit.ts';

/**
 * Issue 12, finding 7: ten concurrent refreshes with one token gave ten different live successors, so a
 * thief racing the owner inside the grace period kept a branch of the session of their own after the
 * owner rotated. docs/api.md §3: within the grace a refresh with the same token returns the *same* pair.
 */
type Context = { app: TestApp; user: SeededUser };

/** auth.refreshReuseGrace is 10 s. */
const PAST_THE_GRACE = 10_001;

const refresh = (app: TestApp, refreshToken: string) =>
  app.request('POST', '/auth/refresh', { body: { refresh_token: refreshToken } });

for (const [target, test] of suitePerBackend<Context>(
  backends(),
  (name) => `concurrent refreshes of one token on ${name}`,
)) {
  test.before.each(async (context) => {
    context.app = await startTestApp({ persistence: borrowed(await target.fresh()) });
    context.user = await context.app.createUser();
  });
  test.after.each(({ app }) => app.close());
  test.after(() => target.dispose());

  test('ten concurrent refreshes of one token all answer one and the same pair', async ({ app, user }) => {
    const login = await app.login(user);
    const answers = await Promise.all(Array.from({ length: 10 }, () => refresh(app, login.refresh_token)));
    for (const answer of answers) assert.is(answer.status, 200, answer.text);
    assert.is(new Set(answers.map((answer) => answer.text)).size, 1, 'distinct pairs');
    const pair = answers[0]!.body as TokenPairBody;
    assert.is((await app.request('GET', '/users/me', { token: pair.access_token })).status, 200);
  });

  test('a replay within the grace answers the same pair, byte for byte, expiry included', async ({
    app,
    user,
  }) => {
    const login = await app.login(user);
    const first = await refresh(app, login.refresh_token);
    assert.is(first.status, 200, first.text);
    app.clock.advance(5_000);
    const replay = await refresh(app, login.refresh_token);
    assert.is(replay.status, 200, replay.text);
    assert.is(replay.text, first.text);
  });

  test('the database keeps no usable token of the session, only digests and a sealed pair', async ({
    app,
    user,
  }) => {
    const login = await app.login(user);
    const pair = (await refresh(app, login.refresh_token)).body as TokenPairBody;
    const spent = await app.persistence.refreshTokens.findByDigest(digestSecret(login.refresh_token));
    assert.ok(spent?.sealedSuccessor, 'the spent token keeps its successor, sealed');
    const stored = JSON.stringify([
      spent,
      await app.persistence.refreshTokens.findByDigest(digestSecret(pair.refresh_token)),
    ]);
    for (const secret of [login.refresh_token, pair.refresh_token, pair.access_token]) {
      assert.not.ok(stored.includes(secret));
    }
  });

  test('a thief racing the owner within the grace keeps no working branch after the owner rotates', async ({
    app,
    user,
  }) => {
    const login = await app.login(user);
    const [owner, thief] = await Promise.all([
      refresh(app, login.refresh_token),
      refresh(app, login.refresh_token),
    ]);
    assert.is(owner.status, 200, owner.text);
    assert.is(thief.status, 200, thief.text);
    const owners = owner.body as TokenPairBody;
    const rotated = await refresh(app, owners.refresh_token);
    assert.is(rotated.status, 200, rotated.text);

    app.clock.advance(PAST_THE_GRACE);
    // The thief holds the owner's spent token, not a live one of their own: using it is reuse, and
    // reuse revokes the session, the owner's current token included.
    expectError(
      await refresh(app, (thief.body as TokenPairBody).refresh_token),
      401,
      'INVALID_TOKEN',
      'thief',
    );
    expectError(
      await refresh(app, (rotated.body as TokenPairBody).refresh_token),
      401,
      'INVALID_TOKEN',
      'the revoked family',
    );
  });

  test.run();
}
