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

/** A list in YAML, or comma-separated text from an environment variable. */
const list = z
  .union([z.array(z.string()), z.string()])
  .transform((value) =>
    (typeof value === 'string' ? value.split(',') : value).map((item) => item.trim()).filter(Boolean),
  );

/** A throttle budget: this many failures within `window`, then 429 until the window ends. */
const budget = (failures: number, window: string) =>
  z
    .object({
      failures: integer.min(1).default(failures),
      window: duration.default(ms(window as ms.StringValue)),
    })
    .strict()
    .prefault({});

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
        /** API.md §4a: longer query strings are answered 414 before any parsing. */
        maxQueryLength: integer.min(1024).default(16 * 1024),
        /** Take the client address from `X-Forwarded-For` (only behind a proxy that sets it). */
        trustProxy: flag.default(false),
        /** On SIGTERM/SIGINT: in-flight requests get this long to finish before their sockets close. */
        shutdownTimeout: duration.default(ms('10s')),
        cors: z
          .object({
            enabled: flag.default(false),
            /** Allowed origins, exactly as browsers send them; `*` allows any (never with credentials). */
            origins: list.default([]),
            credentials: flag.default(false),
            maxAge: duration.default(ms('10m')),
          })
          .strict()
          .prefault({}),
      })
      .strict()
      .prefault({}),
    database: z
      .object({
        url: z.url({ protocol: /^postgres(ql)?$/ }).optional(),
        dataDir: z.string().min(1).default('./data'),
        /** How long opening a connection may take before the request gets 503. */
        connectTimeout: duration.default(ms('5s')),
        /** PostgreSQL `statement_timeout` for every statement the server sends. */
        queryTimeout: duration.default(ms('30s')),
        /** While the database is unreachable at start, how often to try again. */
        retryInterval: duration.default(ms('2s')),
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
        throttle: z
          .object({
            enabled: flag.default(true),
            /** `postgres` shares the counters between server instances on the same database. */
            store: z.enum(['memory', 'postgres']).default('memory'),
            /** Failed logins per e-mail and client address. */
            emailAndAddress: budget(5, '15m'),
            /** Failed logins per client address, whatever the e-mail. */
            address: budget(100, '15m'),
          })
          .strict()
          .prefault({}),
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
  MAX_QUERY_LENGTH: 'http.maxQueryLength',
  TRUST_PROXY: 'http.trustProxy',
  SHUTDOWN_TIMEOUT: 'http.shutdownTimeout',
  CORS_ENABLED: 'http.cors.enabled',
  CORS_ORIGINS: 'http.cors.origins',
  CORS_CREDENTIALS: 'http.cors.credentials',
  CORS_MAX_AGE: 'http.cors.maxAge',
  DATABASE_URL: 'database.url',
  DATA_DIR: 'database.dataDir',
  DB_CONNECT_TIMEOUT: 'database.connectTimeout',
  DB_QUERY_TIMEOUT: 'database.queryTimeout',
  DB_RETRY_INTERVAL: 'database.retryInterval',
  SECRET: 'auth.secret',
  TOKEN_ISSUER: 'auth.issuer',
  ACCESS_TOKEN_TTL: 'auth.accessTokenTTL',
  REFRESH_TOKEN_TTL: 'auth.refreshTokenTTL',
  REFRESH_REUSE_GRACE: 'auth.refreshReuseGrace',
  TOKEN_FORMAT: 'auth.tokenFormat',
  CHECK_SESSION_ON_EACH_REQUEST: 'auth.checkSessionOnEachRequest',
  ALLOW_QUERY_TOKEN: 'auth.allowQueryToken',
  HASH_CONCURRENCY: 'auth.hashConcurrency',
  LOGIN_THROTTLE: 'auth.throttle.enabled',
  LOGIN_THROTTLE_STORE: 'auth.throttle.store',
  QUERY_LIMIT_DEFAULT: 'query.limitDefault',
  QUERY_LIMIT_MAX: 'query.limitMax',
  QUERY_BATCH_MAX: 'query.batchMax',
  ADMIN_EMAIL: 'bootstrap.adminEmail',
  ADMIN_PASSWORD: 'bootstrap.adminPassword',
  LOG_LEVEL: 'log.level',
};
