import { randomBytes } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { AccessTokens } from '../../src/application/ports/access-tokens.ts';
import { expectDomainError } from '../support/expect-domain-error.ts';

export type MakeAccessTokens = (options: { secret: string; ttlMs: number }) => AccessTokens;

/** One AccessTokens adapter, by name, and how to make it with a given secret and lifetime. */
export type AccessTokensTarget = { readonly name: string; readonly create: MakeAccessTokens };

const SECRET = 'contract-secret-0123456789abcdef-0123456789';
const OTHER_SECRET = 'another-secret-0123456789abcdef-0123456789';
const TTL_MS = 15 * 60_000;
/** In the past and off a whole second, so a system clock or a rounding slip shows up as a failure. */
const NOW = new Date('2021-03-04T05:06:07.890Z');
const CLAIMS = { sub: 'user-1', role: 'role-editors', sid: 'session-1' };
const PREVIEW = { role: 'role-editors', issuer: 'admin-1', session: 'session-1' };
const at = (ms: number) => new Date(ms);

/** Rules every AccessTokens adapter (the in-memory fake included) must follow. */
export function accessTokensContract({ name, create: make }: AccessTokensTarget) {
  const test = suite(`AccessTokens contract: ${name}`);
  const tokens = () => make({ secret: SECRET, ttlMs: TTL_MS });

  test('a verified token gives back the claims it was issued with', async () => {
    const adapter = tokens();
    const { token, expiresAt } = await adapter.issue(CLAIMS, NOW);
    assert.equal(await adapter.verify(token, NOW), { ...CLAIMS, expiresAt });
  });

  test('a null role survives the round trip', async () => {
    const adapter = tokens();
    const { token, expiresAt } = await adapter.issue({ ...CLAIMS, role: null }, NOW);
    assert.equal(await adapter.verify(token, NOW), { ...CLAIMS, role: null, expiresAt });
  });

  test('a preview gives back its claims, a null role and session included, and no session claims', async () => {
    const adapter = tokens();
    for (const preview of [PREVIEW, { role: null, issuer: 'admin-1', session: null }]) {
      const { token, expiresAt } = await adapter.issue({ preview }, NOW);
      assert.equal(await adapter.verify(token, NOW), { preview, expiresAt });
    }
  });

  test('a preview expires as a session token does', async () => {
    const adapter = tokens();
    const issued = await adapter.issue({ preview: PREVIEW }, NOW);
    assert.is(issued.expiresAt.getTime(), Math.floor((NOW.getTime() + TTL_MS) / 1000) * 1000);
    await expectDomainError(adapter.verify(issued.token, issued.expiresAt), 'TOKEN_EXPIRED');
  });

  test('expiresAt is now + ttl floored to whole seconds, and verify reports the same', async () => {
    const adapter = tokens();
    const issued = await adapter.issue(CLAIMS, NOW);
    const expected = Math.floor((NOW.getTime() + TTL_MS) / 1000) * 1000;
    assert.is(issued.expiresAt.getTime(), expected);
    assert.is(issued.expiresAt.getTime() % 1000, 0);
    assert.is((await adapter.verify(issued.token, NOW)).expiresAt.getTime(), expected);
  });

  test('two tokens issued in the same instant differ', async () => {
    const adapter = tokens();
    const first = await adapter.issue(CLAIMS, NOW);
    const second = await adapter.issue(CLAIMS, NOW);
    assert.is.not(first.token, second.token);
  });

  test('a token is accepted until the millisecond before expiresAt', async () => {
    const adapter = tokens();
    const { token, expiresAt } = await adapter.issue(CLAIMS, NOW);
    await adapter.verify(token, at(expiresAt.getTime() - 1));
  });

  test('a token is TOKEN_EXPIRED at expiresAt and after it', async () => {
    const adapter = tokens();
    const { token, expiresAt } = await adapter.issue(CLAIMS, NOW);
    await expectDomainError(adapter.verify(token, expiresAt), 'TOKEN_EXPIRED');
    await expectDomainError(adapter.verify(token, at(expiresAt.getTime() + 3_000)), 'TOKEN_EXPIRED');
    await expectDomainError(adapter.verify(token, at(expiresAt.getTime() + 3_600_000)), 'TOKEN_EXPIRED');
  });

  test('a token from a peer whose clock runs 3 s ahead is accepted', async () => {
    const adapter = tokens();
    const { token } = await adapter.issue(CLAIMS, NOW);
    await adapter.verify(token, at(NOW.getTime() - 3_000));
  });

  test("a token issued more than 5 s ahead of the verifier's clock (a future iat) is INVALID_TOKEN", async () => {
    const adapter = tokens();
    const { token } = await adapter.issue(CLAIMS, NOW);
    await expectDomainError(adapter.verify(token, at(NOW.getTime() - 60_000)), 'INVALID_TOKEN');
    await expectDomainError(adapter.verify(token, at(NOW.getTime() - 6_000)), 'INVALID_TOKEN');
    await adapter.verify(token, NOW);
  });

  test('garbage is INVALID_TOKEN', async () => {
    const adapter = tokens();
    for (const garbage of ['', 'garbage', 'a.b.c', 'mem.nope', 'v4.public.AAAA', 'eyJ.eyJ.sig']) {
      await expectDomainError(adapter.verify(garbage, NOW), 'INVALID_TOKEN');
    }
  });

  test('a token issued with another secret is INVALID_TOKEN', async () => {
    const { token } = await make({ secret: OTHER_SECRET, ttlMs: TTL_MS }).issue(CLAIMS, NOW);
    await expectDomainError(tokens().verify(token, NOW), 'INVALID_TOKEN');
  });

  test('a tampered token is INVALID_TOKEN', async () => {
    const adapter = tokens();
    const { token } = await adapter.issue(CLAIMS, NOW);
    const middle = Math.floor(token.length / 2);
    const tampered = token.slice(0, middle) + (token[middle] === 'A' ? 'B' : 'A') + token.slice(middle + 1);
    await expectDomainError(adapter.verify(tampered, NOW), 'INVALID_TOKEN');
  });

  test('looksLikeAccessToken accepts its own tokens and not a static token', async () => {
    const adapter = tokens();
    const { token } = await adapter.issue(CLAIMS, NOW);
    assert.ok(adapter.looksLikeAccessToken(token));
    assert.not.ok(adapter.looksLikeAccessToken(randomBytes(32).toString('base64url')));
    assert.not.ok(adapter.looksLikeAccessToken(''));
  });

  return test;
}
