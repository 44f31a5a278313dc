import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { withTestApp } from '../support/test-app.ts';

test('with auth.tokenFormat paseto, login issues v4.public access tokens that work like JWTs', () =>
  withTestApp(
    async (app) => {
      const pair = await app.login(await app.seedAdmin());
      assert.match(pair.access_token, /^v4\.public\./);
      const payload = JSON.parse(
        Buffer.from(pair.access_token.split('.')[2]!, 'base64url').subarray(0, -64).toString('utf8'),
      ) as { exp: string };
      assert.is(Date.parse(payload.exp), pair.expires, 'expires is the token’s exp');
      assert.is((await app.request('GET', '/users/me', { token: pair.access_token })).status, 200);

      const refreshed = await app.request('POST', '/auth/refresh', {
        body: { refresh_token: pair.refresh_token },
      });
      assert.is(refreshed.status, 200);
      app.clock.advance(pair.expires - app.clock.now().getTime());
      const expired = await app.request('GET', '/users/me', { token: pair.access_token });
      assert.is(expired.status, 401);
      assert.match(expired.text, 'TOKEN_EXPIRED');
    },
    { env: { TOKEN_FORMAT: 'paseto' } },
  ));

test.run();
