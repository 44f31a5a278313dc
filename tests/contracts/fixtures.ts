import { randomUUID } from 'node:crypto';
import { RefreshToken, type RefreshTokenProps } from '../../src/domain/refresh-token.ts';
import { Role, type RoleProps } from '../../src/domain/role.ts';
import { User, type UserProps } from '../../src/domain/user.ts';

/** Millisecond precision on purpose: a round trip through timestamptz must keep every millisecond. */
export const T0 = new Date('2026-03-04T05:06:07.891Z');

export const at = (offsetMs: number) => new Date(T0.getTime() + offsetMs);

export const HOUR = 3_600_000;

/** A 64-hex-character value shaped like a SHA-256 digest. */
export const digest = (seed: string) => seed.padEnd(64, '0').slice(0, 64);

export function aRole(props: Partial<RoleProps> = {}): Role {
  return new Role({
    id: randomUUID(),
    name: `role-${randomUUID()}`,
    description: null,
    adminAccess: false,
    ...props,
  });
}

export function aUser(props: Partial<UserProps> = {}): User {
  const id = randomUUID();
  return new User({
    id,
    email: `${id}@example.com`,
    passwordHash: '$argon2id$v=19$m=65536,t=3,p=4$c2FsdA$aGFzaA',
    roleId: null,
    status: 'active',
    firstName: null,
    lastName: null,
    tokenDigest: null,
    createdAt: T0,
    ...props,
  });
}

export function aRefreshToken(
  props: Partial<RefreshTokenProps> & Pick<RefreshTokenProps, 'userId'>,
): RefreshToken {
  const id = randomUUID();
  return new RefreshToken({
    id,
    sessionId: randomUUID(),
    tokenDigest: digest(id.replaceAll('-', '')),
    createdAt: T0,
    expiresAt: at(HOUR),
    rotatedAt: null,
    revokedAt: null,
    sealedSuccessor: null,
    ...props,
  });
}
