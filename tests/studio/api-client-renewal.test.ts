import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ApiClient, type TokenSource } from '../../studio/src/api/client.ts';

/**
 * The studio's client after a 401: only the token that was refused is renewed. A token renewed while the
 * request was under way (by another request, the live table's socket or the timer) is used as it is, so
 * requests refused together ask for one new token — a role preview asked for twice was a flaky test.
 */
const renewal = suite('ApiClient after a 401');

type Session = TokenSource & { token: string; renewals: number };

function session(first: string): Session {
  const state: Session = {
    token: first,
    renewals: 0,
    accessToken: () => state.token,
    renew: async () => {
      state.renewals++;
      state.token = `renewed-${state.renewals}`;
      return true;
    },
  };
  return state;
}

/** A server that takes only `valid`; `during` runs while the first request is under way. */
function server(valid: () => string, during: () => void = () => {}) {
  const sent: string[] = [];
  const fetch = async (_url: string | URL | Request, init?: RequestInit) => {
    const authorization = new Headers(init?.headers).get('authorization') ?? '';
    sent.push(authorization);
    if (sent.length === 1) during();
    const ok = authorization === `Bearer ${valid()}`;
    return new Response(
      ok ? '{"id":1}' : '{"errors":[{"message":"expired","extensions":{"code":"TOKEN_EXPIRED"}}]}',
      {
        status: ok ? 200 : 401,
        headers: { 'content-type': 'application/json' },
      },
    );
  };
  return { sent, fetch };
}

const realFetch = globalThis.fetch;
renewal.after.each(() => {
  globalThis.fetch = realFetch;
});

renewal(
  'a token renewed while the request was under way is retried as it is, not renewed again',
  async () => {
    const tokens = session('old');
    const answers = server(
      () => 'newer',
      () => {
        tokens.token = 'newer';
      },
    );
    globalThis.fetch = answers.fetch as typeof fetch;
    const item = await new ApiClient('plain', tokens).get<{ id: number }>('/items/cargos/1');
    assert.equal(item, { id: 1 });
    assert.is(tokens.renewals, 0);
    assert.equal(answers.sent, ['Bearer old', 'Bearer newer']);
  },
);

renewal(
  'the token that was refused is renewed once, and the request sent again with the new one',
  async () => {
    const tokens = session('old');
    const answers = server(() => 'renewed-1');
    globalThis.fetch = answers.fetch as typeof fetch;
    const item = await new ApiClient('plain', tokens).get<{ id: number }>('/items/cargos/1');
    assert.equal(item, { id: 1 });
    assert.is(tokens.renewals, 1);
    assert.equal(answers.sent, ['Bearer old', 'Bearer renewed-1']);
  },
);

renewal.run();
