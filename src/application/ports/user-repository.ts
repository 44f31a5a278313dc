import type { User, UserChanges } from '../../domain/user.ts';
import type { ActivityEntry } from './activity-log.ts';
import type { SystemPage, SystemQuery } from './system-query.ts';

export interface UserRepository {
  findById(id: string): Promise<User | null>;
  /** `email` is already normalized (see `Email`); adapters compare it as given. */
  findByEmail(email: string): Promise<User | null>;
  findByTokenDigest(digest: string): Promise<User | null>;
  list(): Promise<User[]>;
  /** The users a list query selects, in one statement where there is a database (system-query.ts). */
  query(query: SystemQuery): Promise<SystemPage<User>>;
  /**
   * Inserts or updates by id. Throws `DomainError` RECORD_NOT_UNIQUE (field `email` or `token`)
   * when another user already has that e-mail or static token. `activity`, when given, is recorded in
   * the same transaction (docs/decisions/0033).
   */
  save(user: User, activity?: ActivityEntry): Promise<void>;
  /**
   * Sets `changes` on an existing user and answers the user as stored after them; the members left out
   * keep what is stored, so two changes at once each keep the other's (a name changed while the user is
   * suspended leaves the suspension). Null when there is no such user (deleted since it was read: a change
   * never brings a user back), and then records nothing. Throws as `save` does.
   */
  update(id: string, changes: UserChanges, activity?: ActivityEntry): Promise<User | null>;
  /**
   * Also removes the user's refresh tokens. Returns false when there was no such user (and records
   * nothing); otherwise `activity`, when given, is recorded in the same transaction.
   */
  delete(id: string, activity?: ActivityEntry): Promise<boolean>;
  /** Whether any user holds a role with admin access, whatever the user's status. */
  anyAdminExists(): Promise<boolean>;
  /** The users who can administer right now: active, holding a role with admin access. */
  activeAdmins(): Promise<Array<{ id: string; roleId: string }>>;
}
