import type { Role } from '../../domain/role.ts';

export interface RoleRepository {
  findById(id: string): Promise<Role | null>;
  findByName(name: string): Promise<Role | null>;
  list(): Promise<Role[]>;
  /** Inserts or updates by id. Throws `DomainError` RECORD_NOT_UNIQUE (field `name`) on a taken name. */
  save(role: Role): Promise<void>;
  /** Users holding the role are left with no role. Returns false when there was no such role. */
  delete(id: string): Promise<boolean>;
}
