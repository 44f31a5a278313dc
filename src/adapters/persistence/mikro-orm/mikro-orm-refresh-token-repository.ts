import type { ExpressionBuilder, Selectable } from 'kysely';
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
            sealed_successor: token.sealedSuccessor,
          })
          .execute(),
      UNIQUE,
    );
  }

  async addFirstOfSession(token: RefreshToken, passwordHash: string) {
    if (!isUuid(token.userId)) return false;
    // Inserted from the user's row, locked for share: a suspension or new password being written waits
    // for this insert and then ends its session, or has committed and this finds no row to insert from.
    const result = await this.database.run(
      (db) =>
        db
          .insertInto('datagate_sessions')
          .columns(NEW_TOKEN_COLUMNS)
          .expression((eb) =>
            eb
              .selectFrom('datagate_users')
              .select(newTokenColumns(eb, token))
              .where('id', '=', token.userId)
              .where('status', '=', 'active')
              .where('password_hash', '=', passwordHash)
              .forShare(),
          )
          .executeTakeFirst(),
      UNIQUE,
    );
    return (result.numInsertedOrUpdatedRows ?? 0n) > 0n;
  }

  async findByDigest(digest: string) {
    const row = await this.database.run((db) =>
      db.selectFrom('datagate_sessions').selectAll().where('token_digest', '=', digest).executeTakeFirst(),
    );
    return row ? toRefreshToken(row) : null;
  }

  async rotate(spentId: string, successor: RefreshToken, sealedSuccessor: string, at: Date) {
    if (!isUuid(spentId)) return false;
    // One statement: the successor is inserted only from the row the update spent. A concurrent refresh
    // waits on that row's lock, then finds it spent (PostgreSQL re-checks the condition on the updated
    // row), so it spends nothing and inserts nothing.
    const result = await this.database.run(
      (db) =>
        db
          .with('spent', (cte) =>
            cte
              .updateTable('datagate_sessions')
              .set({ rotated_at: at.toISOString(), sealed_successor: sealedSuccessor })
              .where('id', '=', spentId)
              .where('rotated_at', 'is', null)
              .where('revoked_at', 'is', null)
              .returning('id'),
          )
          .insertInto('datagate_sessions')
          .columns(NEW_TOKEN_COLUMNS)
          .expression((eb) => eb.selectFrom('spent').select(newTokenColumns(eb, successor)))
          .executeTakeFirst(),
      UNIQUE,
    );
    return (result.numInsertedOrUpdatedRows ?? 0n) > 0n;
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
    // A statement sees the rows committed when it began. A refresh rotating one of these tokens meanwhile
    // holds the spent row: the update waits for it and revokes it, but misses the successor that refresh
    // inserted, committed after the update began, which would outlive the logout, the new password or the
    // suspension. The next statement sees it; revoking ends once one finds nothing live.
    let revoked: bigint;
    do {
      // Only tokens not revoked yet: the first revocation time is the one that counts.
      const result = await this.database.run((db) =>
        db
          .updateTable('datagate_sessions')
          .set({ revoked_at: at.toISOString() })
          .where(column, '=', value)
          .where('revoked_at', 'is', null)
          .executeTakeFirst(),
      );
      revoked = result.numUpdatedRows;
    } while (revoked > 0n);
  }
}

/** The columns of a token inserted from another row (its user's, or the one it succeeds); the rest start null. */
const NEW_TOKEN_COLUMNS = [
  'id',
  'session_id',
  'user_id',
  'token_digest',
  'created_at',
  'expires_at',
] as const;

/** `token`'s values of NEW_TOKEN_COLUMNS, selected as constants beside the row it is inserted from. */
function newTokenColumns<DB, TB extends keyof DB>(eb: ExpressionBuilder<DB, TB>, token: RefreshToken) {
  return [
    eb.val(token.id).as('id'),
    eb.val(token.sessionId).as('session_id'),
    eb.val(token.userId).as('user_id'),
    eb.val(token.tokenDigest).as('token_digest'),
    eb.val(token.createdAt.toISOString()).as('created_at'),
    eb.val(token.expiresAt.toISOString()).as('expires_at'),
  ];
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
    sealedSuccessor: row.sealed_successor,
  });
}
