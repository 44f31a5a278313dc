import type { RefreshTokenRepository } from '../../../application/ports/refresh-token-repository.ts';
import { RefreshToken } from '../../../domain/refresh-token.ts';
import type { User } from '../../../domain/user.ts';

const copy = (token: RefreshToken) => new RefreshToken({ ...token });

export class InMemoryRefreshTokenRepository implements RefreshTokenRepository {
  private readonly tokens = new Map<string, RefreshToken>();

  /** `storedUser`: the user as stored now, as the database's tables are one store. */
  constructor(private readonly storedUser: (id: string) => User | undefined) {}

  async add(token: RefreshToken) {
    this.tokens.set(token.id, copy(token));
  }

  /** Atomic because nothing between the check and the write awaits. */
  async addFirstOfSession(token: RefreshToken, passwordHash: string) {
    const user = this.storedUser(token.userId);
    if (!user?.isActive || user.passwordHash !== passwordHash) return false;
    this.tokens.set(token.id, copy(token));
    return true;
  }

  async findByDigest(digest: string) {
    for (const token of this.tokens.values()) if (token.tokenDigest === digest) return copy(token);
    return null;
  }

  /** Atomic because nothing between the check and the writes awaits. */
  async rotate(spentId: string, successor: RefreshToken, sealedSuccessor: string, at: Date) {
    const spent = this.tokens.get(spentId);
    if (!spent || spent.rotatedAt !== null || spent.revokedAt !== null) return false;
    spent.rotatedAt = at;
    spent.sealedSuccessor = sealedSuccessor;
    this.tokens.set(successor.id, copy(successor));
    return true;
  }

  async revokeSession(sessionId: string, at: Date) {
    this.revokeWhere((token) => token.sessionId === sessionId, at);
  }

  async revokeUser(userId: string, at: Date) {
    this.revokeWhere((token) => token.userId === userId, at);
  }

  async isSessionActive(sessionId: string, now: Date) {
    for (const token of this.tokens.values()) {
      if (token.sessionId === sessionId && token.revokedAt === null && token.expiresAt > now) return true;
    }
    return false;
  }

  async deleteExpired(before: Date) {
    let removed = 0;
    for (const [id, token] of this.tokens) {
      if (token.expiresAt < before) {
        this.tokens.delete(id);
        removed++;
      }
    }
    return removed;
  }

  /** Mirrors the database's cascade when a user is deleted. */
  removeUser(userId: string) {
    for (const [id, token] of this.tokens) if (token.userId === userId) this.tokens.delete(id);
  }

  private revokeWhere(match: (token: RefreshToken) => boolean, at: Date) {
    for (const token of this.tokens.values())
      if (match(token) && token.revokedAt === null) token.revokedAt = at;
  }
}
