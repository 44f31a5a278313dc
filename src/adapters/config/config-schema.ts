import ms from 'ms';
import { z } from 'zod';

/** `ms`-style text (`900s`, `15m`, `7d`) or a number of milliseconds; a bare numeric string is milliseconds. */
const duration = z.union([z.number(), z.string()]).transform((value, ctx) => {
  const millis = typeof value === 'number' ? value : ms(value as ms.StringValue);
  if (typeof millis !== 'number' || !Number.isFinite(millis) || millis <= 0) {
    ctx.addIssue({
      code: 'custom',
      message: `"${value}" is not a positive duration such as 900s, 15m or 7d`,
    });
    return z.NEVER;
  }
  return Math.round(millis);
});

/** Environment variables are text, and `z.coerce.boolean()` would read "false" as true. */
const flag = z.union([
  z.boolean(),
  z.enum(['true', 'false', '1', '0']).transform((value) => value === 'true' || value === '1'),
]);

const integer = z.coerce.number().int();

const byteSize = z
  .union([z.number().int().positive(), z.string().regex(/^\d+(\.\d+)?\s*(b|kb|mb|gb)?$/i)])
  .describe('bytes, or a size such as 512kb or 1mb');

export const configSchema = z
  .object({
    http: z
      .object({
        host: z.string().min(1).default('127.0.0.1'),
        port: integer.min(0).max(65535).default(8055),
        profile: z.enum(['plain', 'directus']).default('plain'),
        bodyLimit: byteSize.default('1mb'),
      })
      .strict()
      .prefault({}),
    database: z
      .object({
        url: z.url({ protocol: /^postgres(ql)?$/ }).optional(),
        dataDir: z.string().min(1).default('./data'),
      })
      .strict()
      .prefault({}),
    auth: z
      .object({
        secret: z.string().min(32, 'must be at least 32 characters').optional(),
        issuer: z.string().min(1).default('datagate'),
        accessTokenTTL: duration.default(ms('15m')),
        refreshTokenTTL: duration.default(ms('7d')),
        refreshReuseGrace: duration.default(ms('10s')),
        tokenFormat: z.enum(['jwt', 'paseto']).default('jwt'),
        checkSessionOnEachRequest: flag.default(false),
        allowQueryToken: flag.default(true),
        /** argon2 hashes at once; unset = one fewer than the cores (at least 1). */
        hashConcurrency: integer.min(1).max(64).optional(),
      })
      .strict()
      .prefault({}),
    query: z
      .object({
        limitDefault: integer.min(1).default(100),
        limitMax: integer.min(-1).default(1000),
        batchMax: integer.min(1).default(1000),
      })
      .strict()
      .prefault({}),
    bootstrap: z
      .object({
        adminEmail: z.string().optional(),
        adminPassword: z.string().optional(),
      })
      .strict()
      .prefault({}),
    log: z
      .object({
        level: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
      })
      .strict()
      .prefault({}),
  })
  .strict();

export type ConfigInput = z.input<typeof configSchema>;
/** The validated configuration, secret still optional (see `resolveSecret`). */
export type ParsedConfig = z.output<typeof configSchema>;
export type AppConfig = ParsedConfig & { auth: ParsedConfig['auth'] & { secret: string } };

/** Environment variable → config key (API.md §8). Environment wins over every file. */
export const ENV_KEYS: Record<string, string> = {
  HOST: 'http.host',
  PORT: 'http.port',
  API_PROFILE: 'http.profile',
  BODY_LIMIT: 'http.bodyLimit',
  DATABASE_URL: 'database.url',
  DATA_DIR: 'database.dataDir',
  SECRET: 'auth.secret',
  TOKEN_ISSUER: 'auth.issuer',
  ACCESS_TOKEN_TTL: 'auth.accessTokenTTL',
  REFRESH_TOKEN_TTL: 'auth.refreshTokenTTL',
  REFRESH_REUSE_GRACE: 'auth.refreshReuseGrace',
  TOKEN_FORMAT: 'auth.tokenFormat',
  CHECK_SESSION_ON_EACH_REQUEST: 'auth.checkSessionOnEachRequest',
  ALLOW_QUERY_TOKEN: 'auth.allowQueryToken',
  HASH_CONCURRENCY: 'auth.hashConcurrency',
  QUERY_LIMIT_DEFAULT: 'query.limitDefault',
  QUERY_LIMIT_MAX: 'query.limitMax',
  QUERY_BATCH_MAX: 'query.batchMax',
  ADMIN_EMAIL: 'bootstrap.adminEmail',
  ADMIN_PASSWORD: 'bootstrap.adminPassword',
  LOG_LEVEL: 'log.level',
};
