import {
  type AuthenticationData,
  authentication,
  createDirectus,
  login,
  logout,
  readItems,
  readMe,
  refresh,
  rest,
  withToken,
} from '@directus/sdk';
import * as assert from 'uvu/assert';
import { backends } from '../support/databases.ts';
import { suitePerBackend } from '../support/suite-per-backend.ts';
import { ADMIN_STATIC_TOKEN, type CargosScenario, ID, startCargosScenario } from './cargos-scenario.ts';
import { SdkClients, sdkError } from './sdk-clients.ts';

const TTL_MS = 15 * 60_000;
/** The SDK's default `msRefreshBeforeExpires`: its timer refreshes this long before the token expires. */
const SDK_REFRESH_MARGIN_MS = 30_000;

type Context = { scenario: CargosScenario; clients: SdkClients };

type RecordedTimer = { delay: number; handle: ReturnType<typeof setTimeout>; callback: () => void };

/**
 * Runs `body` with every `setTimeout` recorded (and still scheduled), so a test can find the SDK's refresh
 * timer by its delay and fire it by hand instead of waiting for it.
 */
async function withRecordedTimers(body: (timers: RecordedTimer[]) => Promise<void>) {
  const real = globalThis.setTimeout;
  const timers: RecordedTimer[] = [];
  const recording = (callback: () => void, delay = 0, ...args: unknown[]) => {
    const handle: ReturnType<typeof setTimeout> = Reflect.apply(real, globalThis, [callback, delay, ...args]);
    timers.push({ delay, handle, callback });
    return handle;
  };
  globalThis.setTimeout = recording as typeof setTimeout;
  try {
    await body(timers);
  } finally {
    globalThis.setTimeout = real;
  }
}

/** A storage the test can read, as a browser's localStorage would be. */
function visibleStorage() {
  let stored: AuthenticationData | null = null;
  return {
    get: () => stored,
    set: (value: AuthenticationData | null) => {
      stored = value;
    },
  };
}

for (const [target, auth] of suitePerBackend<Context>(
  backends(),
  (backend) => `@directus/sdk authentication on ${backend}`,
)) {
  auth.before(async (context) => {
    context.scenario = await startCargosScenario(target);
    context.clients = new SdkClients(context.scenario.app.url);
  });
  auth.after(async ({ scenario, clients }) => {
    clients.stopAll();
    await scenario.close();
    await target.dispose();
  });

  auth('login stores the token pair, with expires as the lifetime in ms', async ({ scenario, clients }) => {
    const client = clients.session();
    const before = Date.now();
    const data = await client.login({ email: scenario.operator.email, password: scenario.operator.password });
    assert.type(data.access_token, 'string');
    assert.type(data.refresh_token, 'string');
    assert.is(data.expires, TTL_MS);
    // The SDK computes expires_at from its own clock: only a lifetime lets it do that.
    assert.ok(data.expires_at! >= before + TTL_MS && data.expires_at! <= Date.now() + TTL_MS);
    assert.is(await client.getToken(), data.access_token);
    assert.is((await client.request(readMe())).id, scenario.operator.id);
  });

  auth('a wrong password is the SDK error INVALID_CREDENTIALS', async ({ scenario, clients }) => {
    const client = clients.session();
    await sdkError(
      client.login({ email: scenario.operator.email, password: 'not-the-password' }),
      401,
      'INVALID_CREDENTIALS',
    );
    assert.is(await client.getToken(), null);
  });

  auth('the SDK’s default cookie mode is refused as docs/api.md §3 says', async ({ scenario }) => {
    const cookie = createDirectus(scenario.app.url).with(rest()).with(authentication());
    const error = await sdkError(
      cookie.login({ email: scenario.operator.email, password: scenario.operator.password }),
      400,
      'INVALID_PAYLOAD',
    );
    assert.is(error.errors[0]?.extensions.field, 'mode');
  });

  auth(
    'refresh() rotates the pair; the spent refresh token is gone from storage',
    async ({ scenario, clients }) => {
      const storage = visibleStorage();
      const client = clients.session({ storage });
      const first = await client.login({
        email: scenario.operator.email,
        password: scenario.operator.password,
      });
      const second = await client.refresh();
      assert.is.not(second.access_token, first.access_token);
      assert.is.not(second.refresh_token, first.refresh_token);
      assert.is(second.expires, TTL_MS);
      assert.is(storage.get()?.refresh_token, second.refresh_token);
      const items = await client.request(readItems('cargos', { fields: ['id'], sort: ['id'] }));
      assert.equal(
        items.map((item) => item.id),
        [ID.fish, ID.bananas, ID.unmeasured],
      );
    },
  );

  auth(
    'an expired access token is refreshed before the next request',
    async ({ scenario: { app, operator }, clients }) => {
      const storage = visibleStorage();
      const client = clients.session({ storage });
      const first = await client.login({ email: operator.email, password: operator.password });

      // The server's clock is a FixedClock and the SDK reads the wall clock: move both by the same span.
      const elapsed = TTL_MS + 1_000;
      app.clock.advance(elapsed);
      storage.set({ ...storage.get()!, expires_at: storage.get()!.expires_at! - elapsed });
      await sdkError(client.request(withToken(first.access_token!, readMe())), 401, 'TOKEN_EXPIRED');

      assert.is((await client.request(readMe())).id, operator.id);
      const renewed = storage.get()!;
      assert.is.not(renewed.access_token, first.access_token);
      assert.is.not(renewed.refresh_token, first.refresh_token);
      assert.ok(renewed.expires_at! > Date.now());
    },
  );

  auth(
    '`expires` is a lifetime in ms: the SDK times its refresh for expiry minus its margin, and the token still works then',
    async ({ scenario: { app, operator }, clients }) => {
      const storage = visibleStorage();
      const client = clients.session({ storage });
      await withRecordedTimers(async (timers) => {
        const loggedInAt = Date.now();
        const first = await client.login({ email: operator.email, password: operator.password });
        // Seconds (900) would set no timer and refresh on every request; a timestamp would set none at all.
        const sdkTimer = timers.find((timer) => timer.delay === TTL_MS - SDK_REFRESH_MARGIN_MS);
        assert.ok(
          sdkTimer,
          `no refresh timer at ${TTL_MS - SDK_REFRESH_MARGIN_MS} ms among ${timers.map((t) => t.delay)}`,
        );
        const expiresAt = storage.get()!.expires_at!;
        assert.ok(
          expiresAt >= loggedInAt + TTL_MS && expiresAt <= Date.now() + TTL_MS,
          `expires_at ${expiresAt}`,
        );

        // The server's clock moves to the moment the timer fires, and the timer fires now, not in 14.5 min.
        app.clock.advance(TTL_MS - SDK_REFRESH_MARGIN_MS);
        clearTimeout(sdkTimer.handle);
        sdkTimer.callback();
        // getToken() waits for the refresh in flight.
        const renewed = await client.getToken();
        assert.is.not(renewed, first.access_token);
        assert.is.not(storage.get()!.refresh_token, first.refresh_token);
        // It refreshed before expiry: the old access token is still good at that moment.
        assert.is((await client.request(withToken(first.access_token!, readMe()))).id, operator.id);
        assert.is((await client.request(withToken(renewed!, readMe()))).id, operator.id);
        // The renewed pair gets its own timer, again a full lifetime minus the margin from now.
        assert.ok(
          timers.some((timer) => timer !== sdkTimer && timer.delay === TTL_MS - SDK_REFRESH_MARGIN_MS),
          'no timer for the renewed pair',
        );
      });
      client.stopRefreshing();
    },
  );

  auth('the refresh timer renews the pair by itself', async ({ scenario: { operator }, clients }) => {
    const storage = visibleStorage();
    // The timer fires `msRefreshBeforeExpires` before expiry: here 50 ms after login.
    const client = clients.session({ storage, msRefreshBeforeExpires: TTL_MS - 50 });
    const first = await client.login({ email: operator.email, password: operator.password });
    const deadline = Date.now() + 10_000;
    while (storage.get()?.access_token === first.access_token || !storage.get()?.access_token) {
      assert.ok(Date.now() < deadline, 'the SDK did not refresh within 10 s');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    client.stopRefreshing();
    // withToken: a request through getToken() would refresh again, the timer being set so early.
    const renewed = storage.get()!.access_token!;
    assert.is((await client.request(withToken(renewed, readMe()))).id, operator.id);
  });

  auth('logout ends the session: its refresh token is refused', async ({ scenario, clients }) => {
    const client = clients.session();
    const data = await client.login({ email: scenario.operator.email, password: scenario.operator.password });
    assert.is(await client.logout(), undefined);
    assert.is(await client.getToken(), null);
    await sdkError(
      client.request(refresh({ mode: 'json', refresh_token: data.refresh_token! })),
      401,
      'INVALID_TOKEN',
    );
  });

  auth(
    'the login, refresh and logout commands in json mode, an otp ignored',
    async ({ scenario, clients }) => {
      const { email, password } = scenario.operator;
      const client = clients.anonymous();
      const pair = await client.request(login({ email, password, otp: '123456' } as never, { mode: 'json' }));
      assert.is(pair.expires, TTL_MS);
      const next = await client.request(refresh({ mode: 'json', refresh_token: pair.refresh_token! }));
      assert.is.not(next.refresh_token, pair.refresh_token);
      assert.is(
        (await client.request(withToken(next.access_token!, readMe({ fields: ['id'] })))).id,
        scenario.operator.id,
      );
      assert.is(await client.request(logout({ mode: 'json', refresh_token: next.refresh_token! })), null);
      await sdkError(
        client.request(refresh({ mode: 'json', refresh_token: next.refresh_token! })),
        401,
        'INVALID_TOKEN',
      );
    },
  );

  auth('staticToken() with the admin’s static token reads everything', async ({ scenario, clients }) => {
    const client = clients.withStaticToken(ADMIN_STATIC_TOKEN);
    assert.is((await client.request(readMe())).id, scenario.admin.id);
    const items = await client.request(readItems('cargos', { fields: ['id', 'is_deleted'], sort: ['id'] }));
    assert.is(items.length, 4);
    assert.equal(items[2], { id: ID.archived, is_deleted: true });
  });

  auth('a bad static token is the SDK error INVALID_TOKEN', async ({ clients }) => {
    const client = clients.withStaticToken('not-a-token-of-anyone-0123456789abcdef');
    await sdkError(client.request(readItems('cargos')), 401, 'INVALID_TOKEN');
  });

  auth('no token at all is UNAUTHENTICATED', async ({ clients }) => {
    await sdkError(clients.anonymous().request(readItems('cargos')), 401, 'UNAUTHENTICATED');
  });

  auth.run();
}
