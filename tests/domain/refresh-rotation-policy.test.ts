import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { decideRefresh } from '../../src/domain/refresh-rotation-policy.ts';
import { RefreshToken } from '../../src/domain/refresh-token.ts';

const at = (iso: string) => new Date(`2026-01-01T${iso}Z`);
const token = (changes: Partial<RefreshToken> = {}) =>
  new RefreshToken({
    id: 't',
    sessionId: 's',
    userId: 'u',
    tokenDigest: 'd',
    createdAt: at('00:00:00'),
    expiresAt: at('01:00:00'),
    rotatedAt: null,
    revokedAt: null,
    sealedSuccessor: null,
    ...changes,
  });
const GRACE = 10_000;

test('a fresh token rotates', () => {
  assert.is(decideRefresh(token(), at('00:30:00'), GRACE).kind, 'rotate');
});

test('a token is expired from its expiry instant on', () => {
  assert.is(decideRefresh(token(), at('00:59:59'), GRACE).kind, 'rotate');
  assert.is(decideRefresh(token(), at('01:00:00'), GRACE).kind, 'expired');
});

test('a spent token replays its successor up to and including the grace period, then it is theft', () => {
  const spent = token({ rotatedAt: at('00:30:00') });
  assert.is(decideRefresh(spent, at('00:30:10'), GRACE).kind, 'replay-successor');
  assert.is(decideRefresh(spent, new Date(at('00:30:10').getTime() + 1), GRACE).kind, 'reuse-detected');
});

test('revocation wins over everything else', () => {
  const revoked = token({ revokedAt: at('00:10:00'), rotatedAt: at('00:10:00') });
  assert.is(decideRefresh(revoked, at('00:10:01'), GRACE).kind, 'revoked');
  assert.is(decideRefresh(revoked, at('02:00:00'), GRACE).kind, 'revoked');
});

test('a long-spent token that has also expired still counts as reuse', () => {
  const spent = token({ rotatedAt: at('00:30:00') });
  assert.is(decideRefresh(spent, at('03:00:00'), GRACE).kind, 'reuse-detected');
});

test.run();
