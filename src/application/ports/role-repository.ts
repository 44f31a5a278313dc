import type { Role, RoleChanges } from '../../domain/role.ts';
import type { ActivityEntry } from './activity-log.ts';
import type { SystemPage, SystemQuery } from './system-query.ts';

export interface RoleRepository {
  findById(id: string): Promise<Role | null>;
  findByName(name: string): Promise<Role | null>;
  list(): Promise<Role[]>;
  /** The roles a list query selects, in one statement where there is a database (system-query.ts). */
  query(query: SystemQuery): Promise<SystemPage<Role>>;
  /**
   * Inserts or updates by id. Throws `DomainError` RECORD_NOT_UNIQUE (field `name`) on a taken name.
   * `activity`, when given, is recorded in the same transaction (docs/decisions/0033).
   */
  save(role: Role, activity?: ActivityEntry): Promise<void>;
  /**
   * Sets `changes` on an existing role and answers the role as stored after them; the members left out
   * keep what is stored, so two changes at once each keep the other's. Null when there is no such role
   * (deleted since it was read: a change never brings a role back), and then records nothing. Throws as
   * `save` does.
   */
  update(id: string, changes: RoleChanges, activity?: ActivityEntry): Promise<Role | null>;
  /**
   * Users holding the role are left with no role. Returns false when there was no such role (and records
   * nothing); otherwise `activity`, when given, is recorded in the same transaction.
   */
  delete(id: string, activity?: ActivityEntry): Promise<boolean>;
}
