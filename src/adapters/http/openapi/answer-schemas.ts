import { z } from 'zod';
import type { CollectionView, FieldView } from '../../../application/collections/collection-view.ts';
import type { PermissionView } from '../../../application/permissions/permission-view.ts';
import type { RoleView } from '../../../application/roles/role-view.ts';
import type { HealthReport } from '../../../application/server/check-health.ts';
import type { ServerInfo } from '../../../application/server/get-server-info.ts';
import type { UserView } from '../../../application/users/user-view.ts';
import { PERMISSION_ACTIONS } from '../../../domain/permissions/permission.ts';
import { FIELD_TYPES } from '../../../domain/schema/field-type.ts';
import { USER_STATUSES } from '../../../domain/user.ts';
import type { HttpSettings } from '../http-settings.ts';

/*
 * The bodies the API answers with, as zod schemas: the document describes answers with these, and the
 * tests check real answers against them. Each is typed by the view its handler returns, so a field added to
 * a view and not here fails to compile.
 */

const id = z.uuid();

export const userAnswer: z.ZodType<UserView> = z.object({
  id,
  email: z.string(),
  first_name: z.string().nullable(),
  last_name: z.string().nullable(),
  role: id.nullable(),
  status: z.enum(USER_STATUSES),
  token: z.string().nullable().describe('Masked when a static token is set.'),
});

export const roleAnswer: z.ZodType<RoleView> = z.object({
  id,
  name: z.string(),
  description: z.string().nullable(),
  admin_access: z.boolean(),
});

const filter = z.record(z.string(), z.unknown()).describe('A filter, as the `filter` query parameter.');

export const permissionAnswer: z.ZodType<PermissionView> = z.object({
  id,
  role: id.nullable().describe('Null: the public role.'),
  collection: z.string(),
  action: z.enum(PERMISSION_ACTIONS),
  permissions: filter.nullable(),
  validation: filter.nullable(),
  presets: z.record(z.string(), z.unknown()).nullable(),
  fields: z.array(z.string()).nullable(),
});

export const fieldAnswer: z.ZodType<FieldView> = z.object({
  collection: z.string(),
  field: z.string(),
  type: z.enum(FIELD_TYPES),
  choices: z
    .array(z.string())
    .nullable()
    .describe("An enum's labels (of its elements, for an array); else null."),
  element_type: z.enum(FIELD_TYPES).nullable().describe("For `array`: one element's type; else null."),
  meta: z
    .object({ options: z.object({ choices: z.array(z.object({ text: z.string(), value: z.string() })) }) })
    .nullable()
    .describe('The enum labels as Directus shapes them; null on other columns.'),
  schema: z.object({
    data_type: z.string().describe('The SQL type as PostgreSQL prints it.'),
    is_nullable: z.boolean(),
    is_primary_key: z.boolean(),
    is_unique: z.boolean(),
    has_auto_increment_or_default: z.boolean(),
    default_value: z.string().nullable().describe('The database default as PostgreSQL prints it.'),
    max_length: z.int().nullable(),
  }),
});

export const collectionAnswer: z.ZodType<CollectionView> = z.object({
  collection: z.string(),
  primary_key: z.string().nullable(),
  read_only: z.boolean().describe('A database view: its items are read, never written.'),
  meta: z.object({
    accountability: z
      .enum(['all', 'activity'])
      .nullable()
      .describe('What writes record: activity and revisions (`all`), `activity` only, or nothing (null).'),
    realtime_watch: z
      .union([z.boolean(), z.literal('stale')])
      .describe(
        'Whether writes made by hand in SQL are realtime events; `stale`: watched, but its columns changed by hand since, so its writes are refused until it is watched again.',
      ),
  }),
  fields: z.array(fieldAnswer),
});

const databaseCheck = z.object({
  status: z.enum(['ok', 'busy', 'error']),
  detail: z.string().optional(),
  responseTimeMs: z.number(),
});

export const healthAnswer: z.ZodType<HealthReport> = z.object({
  status: z
    .enum(['ok', 'warn', 'error'])
    .describe(
      '`warn`: serving, but every database connection is busy (check status `busy`) or a read replica is out of service (`checks.replicas`).',
    ),
  checks: z.object({
    database: databaseCheck,
    listener: z
      .object({
        status: z.enum(['ok', 'reconnecting']),
        schema: z.enum(['event-trigger', 'fingerprint', 'in-process']),
      })
      .optional(),
    replicas: z
      .array(
        z.object({
          status: z.enum(['ok', 'lagging', 'down']),
          lagMs: z.number().nullable(),
          detail: z.string().optional(),
        }),
      )
      .optional(),
  }),
});

export const serverInfoAnswer: z.ZodType<ServerInfo> = z.object({
  version: z.string(),
  uptime: z.int().describe('Seconds since the server started.'),
  node: z.string().describe('The Node.js version.'),
});

/**
 * One group of an aggregate read (docs/api.md §4b): its groupBy keys (`site`, `date_created_year`), then
 * each function asked for, a number for `*` (`count`) or an object of field → result (`avg`).
 */
export const aggregateGroupAnswer = z
  .record(z.string(), z.unknown())
  .describe(
    'With `aggregate` or `groupBy`: one group, its groupBy keys and then each function — a number for `*` (`"count": 3`), else an object of field → result (`"avg": {"temperature": 12.5}`).',
  );

/** respond.tokenPair: what `expires` means depends on the profile (docs/api.md §1). */
export function tokenPairAnswer(profile: HttpSettings['profile']) {
  return TOKEN_PAIRS[profile];
}

/** respond.accessToken: an access token alone (a role preview), `expires` as in a token pair. */
export function accessTokenAnswer(profile: HttpSettings['profile']) {
  return ACCESS_TOKENS[profile];
}

function accessToken(profile: HttpSettings['profile']) {
  return z.object({
    access_token: z.string().describe('Send it as `Authorization: Bearer <token>`.'),
    expires: z
      .int()
      .describe(
        profile === 'directus'
          ? "The access token's lifetime in milliseconds."
          : 'Unix epoch milliseconds at which the access token expires.',
      ),
  });
}

function tokenPair(profile: HttpSettings['profile']) {
  return accessToken(profile).extend({
    refresh_token: z.string().describe('Spent by /auth/refresh, which answers a new pair.'),
  });
}

const ACCESS_TOKENS = { plain: accessToken('plain'), directus: accessToken('directus') };
const TOKEN_PAIRS = { plain: tokenPair('plain'), directus: tokenPair('directus') };
