import type { ColumnType } from 'kysely';
import type { PermissionAction } from '../../../domain/permissions/permission.ts';
import type { UserStatus } from '../../../domain/user.ts';

/**
 * Row shapes of the system tables as Kysely sees them. Timestamps travel as text both ways: MikroORM's
 * type parsers keep them as raw strings (on pg and PGlite alike), and ISO strings are unambiguous parameters.
 */
export type SystemTables = {
  datagate_roles: {
    id: string;
    name: string;
    description: string | null;
    admin_access: boolean;
  };
  datagate_users: {
    id: string;
    email: string;
    password_hash: string;
    role: string | null;
    status: UserStatus;
    first_name: string | null;
    last_name: string | null;
    token_digest: string | null;
    created_at: string;
  };
  datagate_sessions: {
    id: string;
    session_id: string;
    user_id: string;
    token_digest: string;
    created_at: string;
    expires_at: string;
    rotated_at: string | null;
    revoked_at: string | null;
    sealed_successor: string | null;
  };
  /** The jsonb columns take JSON text on the way in and come back parsed (pg and PGlite alike). */
  datagate_permissions: {
    id: string;
    role: string | null;
    collection: string;
    action: PermissionAction;
    permissions: ColumnType<Record<string, unknown> | null, string | null, string | null>;
    validation: ColumnType<Record<string, unknown> | null, string | null, string | null>;
    presets: ColumnType<Record<string, unknown> | null, string | null, string | null>;
    fields: ColumnType<string[] | null, string | null, string | null>;
  };
  datagate_unfinished_uploads: {
    id: string;
    owner: string;
    created_at: string;
  };
};

/** Parses PostgreSQL's `timestamptz` text output (`2026-01-02 03:04:05.678+00`), which `Date` reads as is. */
export function toDate(value: string | Date): Date {
  return value instanceof Date ? value : new Date(value);
}

export function toNullableDate(value: string | Date | null): Date | null {
  return value === null ? null : toDate(value);
}

/** Every table the migrations create for the server itself; the health check asks that each is there. */
export const SYSTEM_TABLE_NAMES = [
  'datagate_roles',
  'datagate_users',
  'datagate_sessions',
  'datagate_permissions',
  'datagate_unfinished_uploads',
] as const satisfies ReadonlyArray<keyof SystemTables>;
