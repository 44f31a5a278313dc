import type { Selectable } from 'kysely';
import type { RefreshTokenRepository } from '../../../application/ports/refresh-token-repository.ts';
import { RefreshToken } from '../../../domain/refresh-token.ts';
import type { SystemDatabase } from './system-database.ts';
import { type SystemTables, toDate, toNullableDate } from './system-tables.ts';
import { isUuid } from './uuid.ts';

const UNIQUE = { datagate_sessions_token_digest_unique: 'token' };

/** One row of `datagate_sessions` per refresh token; the rows of one login share `session_id`. */
export class MikroOrmRefreshTokenRepository implements RefreshTokenRepository {
  constructor(private readonly database: SystemDatabase) {}

  async add(token: RefreshToken) {
    await this.database.run(
      (db) =>
        db
          .insertInto('datagate_sessions')
          .values({
            id: token.id,
            session_id: token.sessionId,
            user_id: token.userId,
            token_digest: token.tokenDigest,
            created_at: token.createdAt.toISOString(),
            expires_at: token.expiresAt.toISOString(),
            rotated_at: token.rotatedAt?.toISOString() ?? null,
            revoked_at: token.revokedAt?.toISOString() ?? null,
          })
          .execute(),
      UNIQUE,
    );
  }

  async findByDigest(digest: string) {
    const row = await this.database.run((db) =>
      db.selectFrom('datagate_sessions').selectAll().where('token_digest', '=', digest).executeTakeFirst(),
    );
    return row ? toRefreshToken(row) : null;
  }

  async markRotated(id: string, at: Date) {
    if (!isUuid(id)) return false;
    // One statement, so two concurrent refreshes cannot both spend the token: the second one matches no row.
    const result = await this.database.run((db) =>
      db
        .updateTable('datagate_sessions')
        .set({ rotated_at: at.toISOString() })
        .where('id', '=', id)
        .where('rotated_at', 'is', null)
        .executeTakeFirst(),
    );
    return result.numUpdatedRows > 0n;
  }

  async revokeSession(sessionId: string, at: Date) {
    if (!isUuid(sessionId)) return;
    await this.revokeWhere('session_id', sessionId, at);
  }

  async revokeUser(userId: string, at: Date) {
    if (!isUuid(userId)) return;
    await this.revokeWhere('user_id', userId, at);
  }

  async isSessionActive(sessionId: string, now: Date) {
    if (!isUuid(sessionId)) return false;
    const row = await this.database.run((db) =>
      db
        .selectFrom('datagate_sessions')
        .select('id')
        .where('session_id', '=', sessionId)
        .where('revoked_at', 'is', null)
        .where('expires_at', '>', now.toISOString())
        .limit(1)
        .executeTakeFirst(),
    );
    return row !== undefined;
  }

  async deleteExpired(before: Date) {
    const result = await this.database.run((db) =>
      db.deleteFrom('datagate_sessions').where('expires_at', '<', before.toISOString()).executeTakeFirst(),
    );
    return Number(result.numDeletedRows);
  }

  private async revokeWhere(column: 'session_id' | 'user_id', value: string, at: Date) {
    // Only tokens not revoked yet: the first revocation time is the one that counts.
    await this.database.run((db) =>
      db
        .updateTable('datagate_sessions')
        .set({ revoked_at: at.toISOString() })
        .where(column, '=', value)
        .where('revoked_at', 'is', null)
        .execute(),
    );
  }
}

function toRefreshToken(row: Selectable<SystemTables['datagate_sessions']>): RefreshToken {
  return new RefreshToken({
    id: row.id,
    sessionId: row.session_id,
    userId: row.user_id,
    tokenDigest: row.token_digest,
    createdAt: toDate(row.created_at),
    expiresAt: toDate(row.expires_at),
    rotatedAt: toNullableDate(row.rotated_at),
    revokedAt: toNullableDate(row.revoked_at),
  });
}
