import { availableParallelism } from 'node:os';
import ms from 'ms';
import { z } from 'zod';

/*
 * Every key carries a description, and the building blocks below a `type`: the README's configuration
 * reference is generated from them (config-reference.ts), and a test fails when the README differs.
 */

/**
 * `ms`-style text (`900s`, `15m`, `7d`) or a number of milliseconds; a bare numeric string is milliseconds.
 * Refusals do not quote the value: a password pasted into the wrong variable must not reach the log.
 */
const duration = z
  .union([z.number(), z.string()])
  .transform((value, ctx) => {
    const millis = typeof value === 'number' ? value : ms(value as ms.StringValue);
    if (typeof millis !== 'number' || !Number.isFinite(millis) || millis <= 0) {
      ctx.addIssue({
        code: 'custom',
        message: 'is not a positive duration such as 900s, 15m or 7d',
      });
      return z.NEVER;
    }
    return Math.round(millis);
  })
  .meta({ type: 'duration' });

/** A duration, or 0 (or "0") to turn off what it paces. */
const durationOrOff = z
  .union([z.literal(0), z.literal('0').transform(() => 0), duration], {
    error: 'is not a duration such as 30s, nor 0 (off)',
  })
  .meta({ type: 'duration' });

/** Environment variables are text, and `z.coerce.boolean()` would read "false" as true. */
const flag = z
  .union(
    [
      z.boolean(),
      z.enum(['true', 'false', '1', '0']).transform((value) => value === 'true' || value === '1'),
    ],
    { error: 'must be true, false, 1 or 0' },
  )
  .meta({ type: 'boolean' });

const integer = z.coerce.number().int();

/** A list in YAML, or comma-separated text from an environment variable. */
const list = z
  .union([z.array(z.string()), z.string()])
  .transform((value) =>
    (typeof value === 'string' ? value.split(',') : value).map((item) => item.trim()).filter(Boolean),
  )
  .meta({ type: 'list' });

/** A throttle budget: this many failures within `window`, then 429 until the window ends. */
const budget = (failures: number, window: string) =>
  z
    .object({
      failures: integer.min(1).default(failures).describe('how many within `window`; the next one gets 429.'),
      window: duration
        .default(ms(window as ms.StringValue))
        .describe('how long they are counted; the 429 lasts until the window ends.'),
    })
    .strict()
    .prefault({});

const POSTGRES_URL = /^postgres(ql)?:\/\/./;

const SIZE_TEXT = /^(\d+(?:\.\d+)?)\s*(b|kb|mb|gb)?$/i;

const byteSize = z.union([z.number().int().positive(), z.string().regex(SIZE_TEXT)]).meta({ type: 'size' });

const UNIT_BYTES: Record<string, number> = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3 };

/** A size read as a number of bytes; the units as `http.bodyLimit` reads them (1kb = 1024 bytes). */
const byteCount = z
  .union([z.number().int().positive(), z.string().regex(SIZE_TEXT)])
  .transform((value) => {
    if (typeof value === 'number') return value;
    const [, amount, unit] = value.match(SIZE_TEXT)!;
    return Math.floor(Number(amount) * UNIT_BYTES[(unit ?? 'b').toLowerCase()]!);
  })
  .meta({ type: 'size' });

const IMAGE_FITS = ['cover', 'contain', 'inside', 'outside'] as const;
const IMAGE_FORMATS = ['jpeg', 'png', 'webp', 'avif', 'tiff'] as const;

/** A named image transform, as `/assets/:id?key=<name>` asks for it. */
const imagePreset = z
  .object({
    width: integer.min(1).optional(),
    height: integer.min(1).optional(),
    fit: z.enum(IMAGE_FITS).optional(),
    format: z.enum([...IMAGE_FORMATS, 'auto']).optional(),
    quality: integer.min(1).max(100).optional(),
    withoutEnlargement: flag.optional(),
  })
  .strict()
  .refine((preset) => Object.keys(preset).length > 0, 'a preset must transform something');

const PRESET_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/** Image variants (`/assets/:id?width=…`): the transform queue, and the limits no request can lift. */
const imageTransforms = z
  .object({
    concurrency: integer
      .min(1)
      .max(256)
      .optional()
      .describe(
        'Image transforms run at once, per instance; unset, one per core. Each decodes one image at a time on one thread.',
      ),
    queue: integer
      .min(0)
      .default(32)
      .describe(
        'Further transforms that may wait for a turn, per instance (a request for a variant already being made waits for it without a place); one more gets 503 `SERVICE_UNAVAILABLE` (`reason: TRANSFORMS_BUSY`) with `Retry-After`.',
      ),
    maxPixels: integer
      .min(1)
      .default(50_000_000)
      .describe(
        "Most pixels (width × height) of an original that a transform decodes, read from the image's header before decoding; a larger one, such as a decompression bomb, gets 400 `INVALID_QUERY` (`reason: IMAGE_TOO_LARGE`).",
      ),
    maxDimension: integer
      .min(1)
      .max(16383)
      .default(6000)
      .describe(
        'Largest width or height of a variant (Directus: `ASSETS_TRANSFORM_IMAGE_MAX_DIMENSION`); a larger `width` or `height`, or a variant that would be larger, gets 400 `INVALID_QUERY`.',
      ),
    presets: z
      .union([
        z.record(z.string().regex(PRESET_NAME), imagePreset),
        z
          .string()
          .transform((text, ctx) => {
            try {
              return JSON.parse(text) as unknown;
            } catch {
              ctx.addIssue({ code: 'custom', message: 'is not JSON text' });
              return z.NEVER;
            }
          })
          .pipe(z.record(z.string().regex(PRESET_NAME), imagePreset)),
      ])
      .meta({ type: 'map (JSON in the environment)' })
      .optional()
      .describe(
        'Named transforms a client asks for with `?key=<name>` (Directus: presets), e.g. `thumbnail: { width: 200, height: 200, fit: cover, format: auto }`; a name is letters, digits, `-` and `_`. `key` cannot be combined with other transform parameters.',
      ),
    presetsOnly: flag
      .default(false)
      .describe(
        'Serves only the presets (`?key=<name>`): `width`, `height`, `fit`, `format`, `quality` and `withoutEnlargement` get 400 `INVALID_QUERY` (`reason: UNSUPPORTED_PARAMETER`). Every distinct transform of a file is stored, so without it a reader can fill the file store with variants of one image (Directus: `storage_asset_transform: presets`).',
      ),
  })
  .strict()
  .superRefine((transforms, ctx) => {
    for (const [name, preset] of Object.entries(transforms.presets ?? {})) {
      for (const side of ['width', 'height'] as const) {
        const value = preset[side];
        if (value !== undefined && value > transforms.maxDimension) {
          ctx.addIssue({
            code: 'custom',
            path: ['presets', name, side],
            message: `is over maxDimension (${transforms.maxDimension})`,
          });
        }
      }
    }
  })
  .prefault({});

export const configSchema = z
  .object({
    http: z
      .object({
        host: z.string().min(1).default('127.0.0.1').describe('Address to listen on.'),
        port: integer.min(0).max(65535).default(8055).describe('Port to listen on; 0 takes a free one.'),
        profile: z
          .enum(['plain', 'directus'])
          .default('plain')
          .describe(
            'Shape of answers: `plain` as docs/api.md; `directus` wraps 2xx bodies in `data` and lists counts in `meta`, so `@directus/sdk` works.',
          ),
        bodyLimit: byteSize.default('1mb').describe('Largest request body; a larger one gets 413.'),
        maxQueryLength: integer
          .min(1024)
          .default(16 * 1024)
          .describe(
            'Longest query string in bytes; a longer one gets 414 `URI_TOO_LONG` before any parsing (docs/api.md §4a).',
          ),
        trustProxy: flag
          .default(false)
          .describe(
            'Take the client address (which the login throttle and every per-address limit count by, WebSocket connections included) from `X-Forwarded-For`; only behind a proxy that sets it.',
          ),
        workers: z
          .union([z.literal('auto'), integer.min(1).max(256)], {
            error: 'must be a whole number from 1 to 256, or auto',
          })
          .transform((value) => (value === 'auto' ? availableParallelism() : value))
          .meta({ type: 'integer, `auto`' })
          .default(1)
          .describe(
            'HTTP server processes (`node:cluster` workers) sharing the port; `auto`: one per core. Above 1: PostgreSQL server only, and each worker has its own `database.poolSize` connections (docs/api.md §10).',
          ),
        shutdownTimeout: duration
          .default(ms('10s'))
          .describe(
            'On SIGTERM/SIGINT, how long requests in flight get to finish before their sockets close.',
          ),
        cors: z
          .object({
            enabled: flag
              .default(false)
              .describe(
                'Answer cross-origin requests from browsers; off, only same-origin pages can call the API.',
              ),
            origins: list
              .default([])
              .describe(
                'Allowed origins, exactly as browsers send them (a comma list in the environment); `*` allows any, never with credentials.',
              ),
            credentials: flag
              .default(false)
              .describe('Let those origins send credentials (`Access-Control-Allow-Credentials`).'),
            maxAge: duration.default(ms('10m')).describe('How long browsers may keep a preflight answer.'),
          })
          .strict()
          .prefault({}),
      })
      .strict()
      .prefault({}),
    database: z
      .object({
        url: z
          .url({
            protocol: /^postgres(ql)?$/,
            error: 'must be a PostgreSQL URL such as postgresql://user:password@host:5432/db',
          })
          .optional()
          .describe(
            'PostgreSQL server (`postgresql://user:password@host:5432/db`); unset, the embedded PostgreSQL (PGlite) in `database.dataDir`.',
          ),
        dataDir: z
          .string()
          .min(1)
          .default('./data')
          .describe(
            'Directory of the embedded database (one process at a time) and of the generated secret.',
          ),
        connectTimeout: duration
          .default(ms('5s'))
          .describe('How long opening a connection may take before the request gets 503.'),
        queryTimeout: duration
          .default(ms('30s'))
          .describe(
            'PostgreSQL `statement_timeout` of the statements sent outside a request (start-up, migrations, the CLI), and of those of fixed shape within one (a user or session looked up by key); a statement cut by it is 503.',
          ),
        poolSize: integer
          .min(1)
          .default(10)
          .describe(
            'Connections to the PostgreSQL server, at most, shared by every request of this instance (plus one kept for /server/health); a request that finds them all busy waits up to `database.connectTimeout`, then gets 503 `SERVICE_BUSY`.',
          ),
        statementTimeout: z
          .object({
            read: duration
              .default(ms('5s'))
              .describe(
                'PostgreSQL `statement_timeout` of the statements of a read (GET); a read cut by it gets 422 `QUERY_TOO_EXPENSIVE`. Like every statement timeout, not on the embedded database, which cannot cancel a statement (docs/api.md §4a).',
              ),
            write: duration
              .default(ms('15s'))
              .describe(
                'PostgreSQL `statement_timeout` of the statements of a write (POST, PATCH, DELETE); cut by it: 422 `QUERY_TOO_EXPENSIVE`, nothing written.',
              ),
            admin: duration
              .default(ms('60s'))
              .describe(
                "PostgreSQL `statement_timeout` of every statement of an administrator's request (schema changes, bulk edits); cut by it: 422 `QUERY_TOO_EXPENSIVE`.",
              ),
          })
          .strict()
          .prefault({}),
        retryInterval: duration
          .default(ms('2s'))
          .describe('While the database cannot be reached at start, how often to try again.'),
        replicas: list
          .default([])
          .describe(
            'PostgreSQL hot standbys of `database.url` (streaming replicas): item lists and single reads go to a healthy one; writes, sign-in and the administration endpoints stay on the primary, and a caller that has just written reads from the primary until a replica has replayed the write. Empty: every read on the primary.',
          ),
        replicaMaxLagMs: duration
          .default(ms('5s'))
          .describe(
            'A replica further behind the primary than this (or not answering) gets no reads until it catches up; checked about every second, and listed in /server/health.',
          ),
      })
      .strict()
      .superRefine((database, ctx) => {
        if (database.replicas.length > 0 && !database.url) {
          ctx.addIssue({
            code: 'custom',
            path: ['replicas'],
            message:
              'needs database.url: replicas are standbys of a PostgreSQL server, not of the embedded one',
          });
        }
        database.replicas.forEach((replica, index) => {
          if (!POSTGRES_URL.test(replica)) {
            ctx.addIssue({
              code: 'custom',
              path: ['replicas', index],
              message: 'is not a postgresql:// URL',
            });
          }
        });
      })
      .prefault({}),
    auth: z
      .object({
        secret: z
          .string()
          .min(32, 'must be at least 32 characters')
          .optional()
          .describe(
            'Secret that access tokens are signed with (the HS256 key, or the seed of the PASETO key pair), at least 32 characters; unset, one is generated once and kept in `<dataDir>/secret` (refused when NODE_ENV=production).',
          ),
        issuer: z
          .string()
          .min(1)
          .default('datagate')
          .describe('`iss` of access tokens; a token of another issuer is refused.'),
        accessTokenTTL: duration.default(ms('15m')).describe('Lifetime of an access token.'),
        refreshTokenTTL: duration
          .default(ms('7d'))
          .describe('Lifetime of a refresh token; every refresh grants it again (sliding session).'),
        refreshReuseGrace: duration
          .default(ms('10s'))
          .describe(
            'A refresh token used again within this time answers the same successor pair as its first use (two tabs refreshing at once); later, its whole session is revoked.',
          ),
        tokenFormat: z
          .enum(['jwt', 'paseto'])
          .default('jwt')
          .describe('Format of access tokens: `jwt` (HS256) or `paseto` (v4.public).'),
        checkSessionOnEachRequest: flag
          .default(false)
          .describe(
            'Refuse an access token once its session has ended (logout, password change, suspension), checked in memory without a query.',
          ),
        allowQueryToken: flag
          .default(true)
          .describe('Accept a token as `?access_token=`; when false, such a request is 400.'),
        hashConcurrency: integer
          .min(1)
          .max(64)
          .optional()
          .describe(
            'argon2 hashes at once; unset, one fewer than the cores (at least 1), so a login storm leaves a core for reads.',
          ),
        throttle: z
          .object({
            enabled: flag
              .default(true)
              .describe('Limit failed logins: over a budget, 429 `TOO_MANY_REQUESTS` with `Retry-After`.'),
            store: z
              .enum(['memory', 'postgres'])
              .optional()
              .describe(
                'Where failures are counted: `memory` (this process) or `postgres` (shared by every instance on the database); unset, `postgres` on a PostgreSQL server (`database.url`), `memory` on the embedded database.',
              ),
            emailAndAddress: budget(5, '15m').describe('Failed logins per e-mail and client address'),
            address: budget(100, '15m').describe('Failed logins per client address, whatever the e-mail'),
            rememberLogin: duration
              .default(ms('30d'))
              .describe(
                'After a successful login, how long that e-mail is counted at that client address by its own budget only, not the address budget: failures flooding a shared address (an office NAT, a proxy without `trustProxy`) cannot lock out the users who log in from it.',
              ),
          })
          .strict()
          .prefault({}),
      })
      .strict()
      .prefault({}),
    query: z
      .object({
        limitDefault: integer.min(1).default(100).describe('Items per page when a read gives no `limit`.'),
        limitMax: integer
          .min(-1)
          .default(1000)
          .describe('Largest `limit` a read may ask for; -1: no maximum, and `limit=-1` reads all items.'),
        maxRelationalDepth: integer
          .min(1)
          .max(10)
          .default(3)
          .describe(
            'Most relations one path of a read may cross (`fields=shipment.customer.name` crosses 2, `*.*.*` 2); deeper is 400 `INVALID_QUERY`.',
          ),
        batchMax: integer
          .min(1)
          .default(1000)
          .describe(
            'Most items one write may touch, in every form (rows matched by a query too); more is 400.',
          ),
        responseMaxBytes: byteCount
          .default(16 * 1024 ** 2)
          .describe(
            "Largest item answer (a page, an item, a write's read-back) as JSON text, in bytes (16 MiB); a larger one is refused with 400 `RESPONSE_TOO_LARGE`, a write's then rolled back. Measured in the database, so a larger answer never reaches the server's memory.",
          ),
      })
      .strict()
      .prefault({}),
    export: z
      .object({
        pageRows: integer
          .min(1)
          .default(1000)
          .describe('Rows an export (`?export=`, `datagate export`) reads from the database at a time.'),
        pageMaxBytes: byteCount
          .default(8 * 1024 ** 2)
          .describe(
            'Largest page an export reads at once, as JSON text (8 MiB): a larger page is read again in halves, so the server holds about this much per export; one row larger than this ends the export.',
          ),
        concurrentPerUser: integer
          .min(1)
          .default(1)
          .describe(
            'Exports one caller (a user, or an anonymous client address) may run at once, per instance; one more is 429 `TOO_MANY_REQUESTS`.',
          ),
      })
      .strict()
      .prefault({}),
    import: z
      .object({
        maxBytes: byteCount
          .default(1024 ** 3)
          .describe(
            'Largest file one import (`POST /utils/import/:collection`, `datagate import`) may send, in bytes (1 GiB); over it is 400 `INVALID_PAYLOAD` with `reason: MAX_BYTES`, nothing written (batch mode: the chunks before stay). `http.bodyLimit` does not apply to imports.',
          ),
        maxRows: integer
          .min(1)
          .default(10_000_000)
          .describe(
            'Most rows one import may hold; one more is 400 `INVALID_PAYLOAD` with `reason: MAX_ROWS`.',
          ),
        chunkRows: integer
          .min(1)
          .max(100_000)
          .default(5000)
          .describe(
            'Rows an import checks and inserts in one statement; in batch mode (`?mode=batch`), rows committed together. An import holds at most two chunks in memory.',
          ),
        maxRecordLength: integer
          .min(1)
          .default(1_048_576)
          .describe(
            'Longest record of an import file (a CSV row, a JSON object, an NDJSON line), in characters; longer is 400 `INVALID_PAYLOAD` naming the row, refused before the rest of it is read.',
          ),
        concurrencyPerUser: integer
          .min(1)
          .default(1)
          .describe(
            'Imports one user (the public caller counts as one) may run at once, per instance; one more is 429 `TOO_MANY_REQUESTS`.',
          ),
      })
      .strict()
      .prefault({}),
    limits: z
      .object({
        perCaller: z
          .object({
            concurrency: integer
              .min(1)
              .default(2)
              .describe(
                'Requests of one caller (a user, static tokens included, or an anonymous client address) served at once, so that one caller holds at most this many database connections; in-process, so per instance.',
              ),
            burst: integer
              .min(1)
              .default(8)
              .describe(
                'Requests of one caller served at once while the instance has room: past `concurrency`, a caller whose requests are quick (`limits.perCaller.quick`) borrows turns while fewer than this many requests run on the instance in all; at most `database.poolSize` − `concurrency`, so another caller always finds a connection. `concurrency` or less: no borrowing.',
              ),
            quick: duration
              .default(ms('50ms'))
              .describe(
                'A caller borrows turns (`limits.perCaller.burst`) only once a request of it has finished, and while none of its requests has taken this long in the last minute, running ones included.',
              ),
            queue: integer
              .min(0)
              .default(64)
              .describe(
                'Further requests of that caller that may wait for a turn (a waiting request costs no connection); one more gets 429 `TOO_MANY_REQUESTS` at once.',
              ),
            queueTimeout: duration
              .default(ms('2s'))
              .describe('How long such a request waits for a turn before it gets 429 with `Retry-After`.'),
          })
          .strict()
          .prefault({}),
      })
      .strict()
      .prefault({}),
    bootstrap: z
      .object({
        adminEmail: z
          .string()
          .optional()
          .describe(
            'E-mail of the first admin, created at start while no admin exists; unset, `admin@example.com`.',
          ),
        adminPassword: z
          .string()
          .optional()
          .describe('Password of that first admin; unset, one is generated and printed once.'),
      })
      .strict()
      .prefault({}),
    metrics: z
      .object({
        port: integer
          .min(0)
          .max(65535)
          .optional()
          .describe(
            "Port of `GET /metrics` (Prometheus text), a listener apart from the API's; unset, no metrics are kept or served; 0 takes a free one. With `http.workers` above 1 the primary serves the sum of every worker (docs/api.md §11).",
          ),
        host: z
          .string()
          .min(1)
          .default('127.0.0.1')
          .describe(
            'Address of the metrics listener; it has no authentication, so widen it (e.g. `0.0.0.0` for a Prometheus in another container) only on a network only the scraper reaches.',
          ),
      })
      .strict()
      .prefault({}),
    realtime: z
      .object({
        enabled: flag
          .default(true)
          .describe(
            'Whether item writes are recorded in the change log that realtime subscriptions are fed from (docs/api.md §12); off, writes record nothing and subscriptions receive no events.',
          ),
        replayWindow: duration
          .default(ms('5m'))
          .describe(
            'How long the change log keeps an event, so a subscriber that reconnects within it resumes without missing a change; older positions must start over.',
          ),
        pollInterval: duration
          .default(ms('1s'))
          .describe(
            'How often each instance with subscribers reads the change log even when no wake-up came (a safety net: a committed change wakes every instance at once); while its wake-up connection is lost, every 100 ms.',
          ),
        sendBufferBytes: byteCount
          .default(1024 ** 2)
          .describe(
            'Bytes of events a realtime connection may have waiting for a client that reads slowly (1 MiB); past it the connection is closed with `SLOW_CONSUMER`.',
          ),
        writeInterval: durationOrOff
          .default(50)
          .describe(
            'The shortest time between two rounds of writes to the realtime clients: events that arrive meanwhile leave together, one system call per client for several events, so the cost of a stream of changes is bounded by the number of clients, not the number of changes (an event that comes alone leaves at once). 0: every round of events is written as soon as it is ready, each at the cost of a system call per client.',
          ),
        wsConnectionsPerUser: integer
          .min(1)
          .default(10)
          .describe(
            'WebSocket connections one user may hold open at once, per instance; one more is closed with 4029.',
          ),
        wsConnectionsPerAddress: integer
          .min(1)
          .default(50)
          .describe(
            'WebSocket connections one client address may hold open at once, per instance; one more upgrade gets 429.',
          ),
        wsSubscriptionsPerConnection: integer
          .min(1)
          .default(20)
          .describe(
            'Subscriptions one WebSocket connection may hold; one more `subscribe` is refused with LIMIT_EXCEEDED.',
          ),
        wsMessageMaxBytes: byteCount
          .default(65536)
          .describe(
            'Largest message a WebSocket client may send (64 KiB); a larger one closes the socket with 1009.',
          ),
        wsAuthTimeout: duration
          .default(ms('10s'))
          .describe(
            'How long a WebSocket connection without a credential may go without authenticating or subscribing before it is closed with 4001.',
          ),
        wsHeartbeat: durationOrOff
          .default(ms('30s'))
          .describe(
            'How often the server sends a WebSocket client `{"type":"ping"}`; a client that sent nothing for a whole period is disconnected. 0 turns the heartbeat off.',
          ),
        sseHeartbeat: duration
          .default(ms('15s'))
          .describe(
            'How often an idle event stream (`GET /items/:collection/events`) sends a `: ping` comment.',
          ),
        sseRetry: duration
          .default(ms('3s'))
          .describe("The event stream's `retry:` hint: how long a client waits before reconnecting."),
        sseStreamsPerUser: integer
          .min(1)
          .default(16)
          .describe(
            'Event streams one user (an anonymous caller: its address) may hold open at once, per instance; one more gets 429 `TOO_MANY_REQUESTS`.',
          ),
        sseStreamsPerAddress: integer
          .min(1)
          .default(64)
          .describe(
            'Event streams one client address may hold open at once, per instance, whoever the callers.',
          ),
      })
      .strict()
      .prefault({}),
    activity: z
      .object({
        retention: z
          .union([z.literal(0), z.literal('0'), duration])
          .transform((value) => Number(value))
          .meta({ type: 'duration' })
          .default(ms('90d'))
          .describe(
            'How long activity entries and revisions are kept (docs/api.md §14); older ones are pruned. 0 keeps them forever.',
          ),
        pruneInterval: duration
          .default(ms('1m'))
          .describe('How often an instance prunes activity older than `activity.retention`.'),
        pruneBatch: integer
          .min(1)
          .max(100_000)
          .default(1000)
          .describe(
            'Activity entries deleted per statement when pruning; small batches never hold up writes.',
          ),
      })
      .strict()
      .prefault({}),
    storage: z
      .object({
        maxUploadSize: byteCount
          .default(100 * 1024 ** 2)
          .describe(
            'Largest file one upload (`POST /files`, `PATCH /files/:id`) may hold, in bytes (100 MiB); one byte more is 413 `CONTENT_TOO_LARGE`, nothing kept. `http.bodyLimit` does not apply to uploads.',
          ),
        allowedTypes: list
          .default([])
          .describe(
            'Media types an upload may have, as sniffed from its bytes (`image/png`, or a family: `image/*`); empty accepts every type. Another is 415 `UNSUPPORTED_MEDIA_TYPE`, refused before more than its first 4 KiB is read.',
          ),
        inlineTypes: list
          .default([
            'image/png',
            'image/jpeg',
            'image/gif',
            'image/webp',
            'image/avif',
            'application/pdf',
            'text/plain',
          ])
          .describe(
            'Media types `/assets` shows in the browser (`Content-Disposition: inline`); any other is sent as an attachment. SVG and HTML can run scripts: leave them out.',
          ),
        driver: z
          .enum(['local', 'postgres', 's3'])
          .default('local')
          .describe(
            "Where files' bytes are kept: `local`, a folder on this machine (`storage.local.root`), for one instance; `postgres`, large objects in the database (the embedded one or `database.url`), which every instance shares with no shared disk; `s3`, a bucket (`storage.s3.*`).",
          ),
        local: z
          .object({
            root: z
              .string()
              .min(1)
              .optional()
              .describe(
                "Folder of the files' bytes with `storage.driver: local`, created at the first upload; unset, `<database.dataDir>/files`.",
              ),
          })
          .strict()
          .prefault({}),
        s3: z
          .object({
            bucket: z
              .string()
              .min(1)
              .optional()
              .describe("Bucket of the files' bytes; required with `storage.driver: s3`."),
            region: z.string().min(1).default('us-east-1').describe("The bucket's region."),
            endpoint: z
              .url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' })
              .optional()
              .describe(
                'URL of an S3-compatible service (MinIO, Cloudflare R2, Ceph…); unset, AWS S3 in `storage.s3.region`.',
              ),
            forcePathStyle: flag
              .default(false)
              .describe(
                'Address the bucket in the path (`<endpoint>/<bucket>/<key>`) rather than the host name; most S3-compatible services need it.',
              ),
            accessKeyId: z
              .string()
              .min(1)
              .optional()
              .describe(
                "Access key of the bucket, with `storage.s3.secretAccessKey`; unset, the AWS SDK's own chain (`AWS_ACCESS_KEY_ID`…, shared files, the instance's role).",
              ),
            secretAccessKey: z
              .string()
              .min(1)
              .optional()
              .describe(
                'Secret of that access key; like `auth.secret`, better set from the environment than in a file.',
              ),
          })
          .strict()
          .superRefine((s3, ctx) => {
            if ((s3.accessKeyId === undefined) !== (s3.secretAccessKey === undefined)) {
              ctx.addIssue({
                code: 'custom',
                path: [s3.accessKeyId === undefined ? 'accessKeyId' : 'secretAccessKey'],
                message:
                  'must be set with storage.s3.accessKeyId and storage.s3.secretAccessKey both, or neither',
              });
            }
          })
          .prefault({}),
        transforms: imageTransforms.describe('Image variants'),
        tus: z
          .object({
            enabled: flag
              .default(false)
              .describe(
                'Serves resumable uploads (TUS 1.0) at `/files/tus` (docs/api.md §15); off, that path answers 404.',
              ),
            expiry: duration
              .default(ms('24h'))
              .describe(
                'How long an unfinished resumable upload may be continued after its creation; then it answers 404 and its parts are removed: when it is next touched, or by the sweep an upload creation runs at most hourly per instance.',
              ),
            lockTimeout: duration
              .default(ms('30s'))
              .describe(
                'How long a request on a resumable upload waits for another request that holds that upload (a PATCH still receiving bytes, on this instance or another) before it answers 423 `LOCKED`, having written nothing; a client retries it.',
              ),
            maxUnfinished: integer
              .min(1)
              .default(20)
              .describe(
                'Resumable uploads one user may have begun and not yet finished, terminated or let expire, counted across every instance in the database; one more creation gets 429 `TOO_MANY_REQUESTS` (`reason: TOO_MANY_UPLOADS`), nothing stored. Each may reserve up to `storage.maxUploadSize` in the file store.',
              ),
          })
          .strict()
          .prefault({}),
      })
      .strict()
      .superRefine((storage, ctx) => {
        if (storage.driver === 's3' && storage.s3.bucket === undefined) {
          ctx.addIssue({
            code: 'custom',
            path: ['s3', 'bucket'],
            message: 'is required with storage.driver: s3',
          });
        }
      })
      .prefault({}),
    studio: z
      .object({
        enabled: flag
          .default(true)
          .describe(
            'Serves the studio, the web app for browsing and governing data, at `/studio` (README "Studio"); off, that path answers 404.',
          ),
      })
      .strict()
      .prefault({}),
    log: z
      .object({
        level: z
          .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
          .default('info')
          .describe(
            'Least severe log line written (JSON lines on stdout); `silent` under NODE_ENV=test (`config/test.yaml`).',
          ),
      })
      .strict()
      .prefault({}),
  })
  .strict();

export type ConfigInput = z.input<typeof configSchema>;
/** The validated configuration, secret still optional (see `resolveSecret`). */
export type ParsedConfig = z.output<typeof configSchema>;
export type AppConfig = ParsedConfig & { auth: ParsedConfig['auth'] & { secret: string } };

/** Environment variable → config key (docs/api.md §8). Environment wins over every file. */
export const ENV_KEYS: Record<string, string> = {
  HOST: 'http.host',
  PORT: 'http.port',
  API_PROFILE: 'http.profile',
  BODY_LIMIT: 'http.bodyLimit',
  MAX_QUERY_LENGTH: 'http.maxQueryLength',
  TRUST_PROXY: 'http.trustProxy',
  HTTP_WORKERS: 'http.workers',
  SHUTDOWN_TIMEOUT: 'http.shutdownTimeout',
  CORS_ENABLED: 'http.cors.enabled',
  CORS_ORIGINS: 'http.cors.origins',
  CORS_CREDENTIALS: 'http.cors.credentials',
  CORS_MAX_AGE: 'http.cors.maxAge',
  STUDIO_ENABLED: 'studio.enabled',
  DATABASE_URL: 'database.url',
  DATA_DIR: 'database.dataDir',
  DB_CONNECT_TIMEOUT: 'database.connectTimeout',
  DB_QUERY_TIMEOUT: 'database.queryTimeout',
  DB_POOL_SIZE: 'database.poolSize',
  DB_STATEMENT_TIMEOUT_READ: 'database.statementTimeout.read',
  DB_STATEMENT_TIMEOUT_WRITE: 'database.statementTimeout.write',
  DB_STATEMENT_TIMEOUT_ADMIN: 'database.statementTimeout.admin',
  DB_RETRY_INTERVAL: 'database.retryInterval',
  DATABASE_REPLICAS: 'database.replicas',
  DATABASE_REPLICA_MAX_LAG_MS: 'database.replicaMaxLagMs',
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
  LOGIN_THROTTLE_REMEMBER_LOGIN: 'auth.throttle.rememberLogin',
  QUERY_LIMIT_DEFAULT: 'query.limitDefault',
  QUERY_LIMIT_MAX: 'query.limitMax',
  QUERY_MAX_RELATIONAL_DEPTH: 'query.maxRelationalDepth',
  QUERY_BATCH_MAX: 'query.batchMax',
  QUERY_RESPONSE_MAX_BYTES: 'query.responseMaxBytes',
  EXPORT_PAGE_ROWS: 'export.pageRows',
  EXPORT_PAGE_MAX_BYTES: 'export.pageMaxBytes',
  EXPORT_CONCURRENT_PER_USER: 'export.concurrentPerUser',
  IMPORT_MAX_BYTES: 'import.maxBytes',
  IMPORT_MAX_ROWS: 'import.maxRows',
  IMPORT_CHUNK_ROWS: 'import.chunkRows',
  IMPORT_MAX_RECORD_LENGTH: 'import.maxRecordLength',
  IMPORT_CONCURRENCY_PER_USER: 'import.concurrencyPerUser',
  STORAGE_MAX_UPLOAD_SIZE: 'storage.maxUploadSize',
  STORAGE_ALLOWED_TYPES: 'storage.allowedTypes',
  STORAGE_INLINE_TYPES: 'storage.inlineTypes',
  PER_CALLER_CONCURRENCY: 'limits.perCaller.concurrency',
  PER_CALLER_BURST: 'limits.perCaller.burst',
  PER_CALLER_QUICK: 'limits.perCaller.quick',
  PER_CALLER_QUEUE: 'limits.perCaller.queue',
  PER_CALLER_QUEUE_TIMEOUT: 'limits.perCaller.queueTimeout',
  ADMIN_EMAIL: 'bootstrap.adminEmail',
  ADMIN_PASSWORD: 'bootstrap.adminPassword',
  METRICS_PORT: 'metrics.port',
  METRICS_HOST: 'metrics.host',
  REALTIME_ENABLED: 'realtime.enabled',
  REALTIME_REPLAY_WINDOW: 'realtime.replayWindow',
  REALTIME_POLL_INTERVAL: 'realtime.pollInterval',
  REALTIME_SEND_BUFFER_BYTES: 'realtime.sendBufferBytes',
  REALTIME_WRITE_INTERVAL: 'realtime.writeInterval',
  REALTIME_WS_CONNECTIONS_PER_USER: 'realtime.wsConnectionsPerUser',
  REALTIME_WS_CONNECTIONS_PER_ADDRESS: 'realtime.wsConnectionsPerAddress',
  REALTIME_WS_SUBSCRIPTIONS_PER_CONNECTION: 'realtime.wsSubscriptionsPerConnection',
  REALTIME_WS_MESSAGE_MAX_BYTES: 'realtime.wsMessageMaxBytes',
  REALTIME_WS_AUTH_TIMEOUT: 'realtime.wsAuthTimeout',
  REALTIME_WS_HEARTBEAT: 'realtime.wsHeartbeat',
  REALTIME_SSE_HEARTBEAT: 'realtime.sseHeartbeat',
  REALTIME_SSE_RETRY: 'realtime.sseRetry',
  REALTIME_SSE_STREAMS_PER_USER: 'realtime.sseStreamsPerUser',
  REALTIME_SSE_STREAMS_PER_ADDRESS: 'realtime.sseStreamsPerAddress',
  ACTIVITY_RETENTION: 'activity.retention',
  ACTIVITY_PRUNE_INTERVAL: 'activity.pruneInterval',
  ACTIVITY_PRUNE_BATCH: 'activity.pruneBatch',
  STORAGE_DRIVER: 'storage.driver',
  STORAGE_LOCAL_ROOT: 'storage.local.root',
  STORAGE_S3_BUCKET: 'storage.s3.bucket',
  STORAGE_S3_REGION: 'storage.s3.region',
  STORAGE_S3_ENDPOINT: 'storage.s3.endpoint',
  STORAGE_S3_FORCE_PATH_STYLE: 'storage.s3.forcePathStyle',
  STORAGE_S3_ACCESS_KEY_ID: 'storage.s3.accessKeyId',
  STORAGE_S3_SECRET_ACCESS_KEY: 'storage.s3.secretAccessKey',
  STORAGE_TRANSFORMS_CONCURRENCY: 'storage.transforms.concurrency',
  STORAGE_TRANSFORMS_QUEUE: 'storage.transforms.queue',
  STORAGE_TRANSFORMS_MAX_PIXELS: 'storage.transforms.maxPixels',
  STORAGE_TRANSFORMS_MAX_DIMENSION: 'storage.transforms.maxDimension',
  STORAGE_TRANSFORMS_PRESETS: 'storage.transforms.presets',
  STORAGE_TRANSFORMS_PRESETS_ONLY: 'storage.transforms.presetsOnly',
  STORAGE_TUS_ENABLED: 'storage.tus.enabled',
  STORAGE_TUS_EXPIRY: 'storage.tus.expiry',
  STORAGE_TUS_LOCK_TIMEOUT: 'storage.tus.lockTimeout',
  STORAGE_TUS_MAX_UNFINISHED: 'storage.tus.maxUnfinished',
  LOG_LEVEL: 'log.level',
};
