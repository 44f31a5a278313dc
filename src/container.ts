import { join } from 'node:path';
import { Container, type ServiceIdentifier } from 'inversify';
import type { Logger } from 'pino';
import { SystemClock } from './adapters/clock/system-clock.ts';
import type { AppConfig } from './adapters/config/config-schema.ts';
import { Argon2PasswordHasher } from './adapters/crypto/argon2-password-hasher.ts';
import { LocalDiskFileStorage } from './adapters/local-disk/local-disk-file-storage.ts';
import { PromClientMetrics } from './adapters/metrics/prom-client-metrics.ts';
import { cachingPersistence } from './adapters/persistence/caching-persistence.ts';
import {
  CLOSE_PART_MS,
  type ClosingPart,
  closeInTurn,
  warnOnStderr,
} from './adapters/persistence/close-in-turn.ts';
import type { Persistence } from './adapters/persistence/persistence.ts';
import { SILENT_ITEM_EVENT_FEED } from './adapters/persistence/silent-item-event-feed.ts';
import { createServerLog } from './adapters/server-log.ts';
import { createLoginThrottle } from './adapters/throttle/create-login-throttle.ts';
import { CachingAccessTokens } from './adapters/tokens/caching-access-tokens.ts';
import { JoseAccessTokens } from './adapters/tokens/jose-access-tokens.ts';
import { PasetoAccessTokens } from './adapters/tokens/paseto-access-tokens.ts';
import type { AuthSettings } from './application/auth/auth-settings.ts';
import type { AccessTokens } from './application/ports/access-tokens.ts';
import type { ActivityLog } from './application/ports/activity-log.ts';
import type { ChangeFeed } from './application/ports/change-feed.ts';
import type { Clock } from './application/ports/clock.ts';
import type { DatabaseHealth } from './application/ports/database-health.ts';
import type { FileStorage } from './application/ports/file-storage.ts';
import type { ItemEventFeed } from './application/ports/item-events.ts';
import type { ItemStore } from './application/ports/item-store.ts';
import type { LoginThrottle } from './application/ports/login-throttle.ts';
import { type Metrics, NO_METRICS } from './application/ports/metrics.ts';
import type { PasswordHasher } from './application/ports/password-hasher.ts';
import type { PermissionRepository } from './application/ports/permission-repository.ts';
import type { RefreshTokenRepository } from './application/ports/refresh-token-repository.ts';
import type { RoleRepository } from './application/ports/role-repository.ts';
import type { SchemaCatalog, SchemaEditor } from './application/ports/schema-catalog.ts';
import type { UnfinishedUploads } from './application/ports/unfinished-uploads.ts';
import type { UserRepository } from './application/ports/user-repository.ts';
import type { CollectionWatch } from './application/realtime/collection-watch.ts';
import { Readiness } from './application/server/readiness.ts';
import type { QueryLimits } from './domain/query/parse-item-query.ts';
import { activityModule } from './modules/activity-module.ts';
import { authModule } from './modules/auth-module.ts';
import { collectionsModule } from './modules/collections-module.ts';
import { exportModule } from './modules/export-module.ts';
import { filesModule } from './modules/files-module.ts';
import { httpModule } from './modules/http-module.ts';
import { imageVariantsModule } from './modules/image-variants-module.ts';
import { importModule } from './modules/import-module.ts';
import { itemEventsModule } from './modules/item-events-module.ts';
import { itemsModule } from './modules/items-module.ts';
import { permissionsModule } from './modules/permissions-module.ts';
import { realtimeHttpModule } from './modules/realtime-http-module.ts';
import { relationsModule } from './modules/relations-module.ts';
import { rolesModule } from './modules/roles-module.ts';
import { serverModule } from './modules/server-module.ts';
import { TYPES } from './modules/service-identifiers.ts';
import { studioModule } from './modules/studio-module.ts';
import { tusModule } from './modules/tus-module.ts';
import { usersModule } from './modules/users-module.ts';

export { TYPES };

/**
 * One module per area, each binding its handlers and contributing its routes and OpenAPI paths. Their
 * order is the order of the routes and of the OpenAPI document's tags, paths and schemas.
 */
const AREAS = [
  authModule,
  usersModule,
  rolesModule,
  permissionsModule,
  collectionsModule,
  relationsModule,
  serverModule,
  itemEventsModule,
  exportModule,
  itemsModule,
  importModule,
  activityModule,
  filesModule,
  tusModule,
  studioModule,
];

/**
 * The composition root: binds the ports and settings, and loads the area modules and the HTTP app.
 * Everything is a singleton, so a test swaps an adapter with one
 * `container.rebind(TYPES.X).toConstantValue(fake)` before first use.
 * `readiness`: ready unless the caller still has start-up work to do on the database (see main.ts).
 * Asynchronous because an adapter that costs much to load and is not always configured (the S3 store) is
 * imported here only when the configuration names it.
 */
export async function buildContainer(
  config: AppConfig,
  persistence: Persistence,
  readiness: Readiness = Readiness.ready(),
): Promise<Container> {
  const container = new Container({ defaultScope: 'Singleton' });
  const constant = <T>(id: ServiceIdentifier<T>, value: T) => container.bind<T>(id).toConstantValue(value);
  const dynamic = <T>(id: ServiceIdentifier<T>, build: () => T) =>
    container.bind<T>(id).toDynamicValue(build);

  constant<AppConfig>(TYPES.Config, config);
  // Measured only when `metrics.port` serves them (docs/decisions/0021-metrics.md).
  const metrics = config.metrics.port === undefined ? NO_METRICS : new PromClientMetrics();
  constant<Metrics>(TYPES.Metrics, metrics);
  metrics.watchPool(() => persistence.poolUsage?.());
  // The repositories read through the in-process caches; the other ports are the persistence's own.
  const cached = cachingPersistence(persistence, metrics);
  constant<UserRepository>(TYPES.UserRepository, cached.users);
  constant<RoleRepository>(TYPES.RoleRepository, cached.roles);
  constant<RefreshTokenRepository>(TYPES.RefreshTokenRepository, cached.refreshTokens);
  constant<PermissionRepository>(TYPES.PermissionRepository, cached.permissions);
  constant<DatabaseHealth>(TYPES.DatabaseHealth, persistence.health);
  constant<SchemaCatalog>(TYPES.SchemaCatalog, persistence.schema);
  constant<SchemaEditor>(TYPES.SchemaEditor, cached.schemaEditor);
  constant<ChangeFeed>(TYPES.ChangeFeed, cached.changes);
  constant<ItemStore>(TYPES.ItemStore, persistence.items);
  constant<ActivityLog>(TYPES.ActivityLog, persistence.activity);
  constant<UnfinishedUploads>(TYPES.UnfinishedUploads, persistence.unfinishedUploads);
  // Files' bytes (`storage.driver`), made on first use: a command that stores no file opens no store.
  dynamic<FileStorage>(TYPES.FileStorage, await configuredFileStorage(config, persistence));
  // Realtime off, or a backend that records no change log: subscriptions get no events (docs/api.md §12).
  constant<ItemEventFeed>(
    TYPES.ItemEventFeed,
    config.realtime.enabled ? (persistence.itemEvents ?? SILENT_ITEM_EVENT_FEED) : SILENT_ITEM_EVENT_FEED,
  );
  // Watching writes made by hand in SQL (docs/api.md §12); null where there is no SQL to write by hand.
  constant<CollectionWatch | null>(TYPES.CollectionWatch, persistence.watch ?? null);
  constant<QueryLimits>(TYPES.QueryLimits, {
    limitDefault: config.query.limitDefault,
    limitMax: config.query.limitMax,
    maxRelationalDepth: config.query.maxRelationalDepth,
  });
  constant<Date>(TYPES.StartedAt, new Date());
  constant<Readiness>(TYPES.Readiness, readiness);
  constant<AuthSettings>(TYPES.AuthSettings, {
    accessTokenTtlMs: config.auth.accessTokenTTL,
    refreshTokenTtlMs: config.auth.refreshTokenTTL,
    refreshReuseGraceMs: config.auth.refreshReuseGrace,
    checkSessionOnEachRequest: config.auth.checkSessionOnEachRequest,
  });
  dynamic<Logger>(TYPES.Logger, () => createServerLog({ level: config.log.level }));
  dynamic<Clock>(TYPES.Clock, () => new SystemClock());
  // Its PostgreSQL store has a pool of its own, which ends with the server (closeServerParts); a throttle
  // no login ever asked for opened nothing.
  let loginThrottle: LoginThrottle | undefined;
  dynamic<LoginThrottle>(
    TYPES.LoginThrottle,
    () => (loginThrottle = createLoginThrottle(config.auth.throttle, config.database, config.auth.secret)),
  );
  constant<ClosingPart>(TYPES.ClosingPart, {
    name: 'the login throttle',
    close: async () => {
      if (loginThrottle && 'close' in loginThrottle) await (loginThrottle as Closable).close();
    },
  });
  dynamic<PasswordHasher>(
    TYPES.PasswordHasher,
    () =>
      new Argon2PasswordHasher({ concurrency: config.auth.hashConcurrency, meter: metrics.passwordHashes }),
  );
  dynamic<AccessTokens>(TYPES.AccessTokens, () => {
    const options = {
      secret: config.auth.secret,
      issuer: config.auth.issuer,
      ttlMs: config.auth.accessTokenTTL,
    };
    const verifier =
      config.auth.tokenFormat === 'paseto' ? new PasetoAccessTokens(options) : new JoseAccessTokens(options);
    const tokens = new CachingAccessTokens(verifier, metrics.cache('access_tokens'));
    // A lost channel drops every cache this instance holds, these included (docs/decisions/0015).
    cached.changes.subscribe({ changed() {}, lost: () => tokens.forgetAll() });
    return tokens;
  });

  // Image variants have no routes of their own: /assets/:id calls them.
  container.load(...AREAS, imageVariantsModule, httpModule, realtimeHttpModule);
  return container;
}

/** A part that holds something open until it is closed (the login throttle's PostgreSQL store). */
type Closable = { close(): Promise<void> };

/**
 * Closes what the modules opened beside the persistence (`TYPES.ClosingPart`: the upload locks' pool, the
 * login throttle's), each bounded as the persistence's parts are. Call it once the HTTP server has drained,
 * so that the requests have let go of what they held (an upload's lock), and before the persistence closes.
 */
export function closeServerParts(container: Container): Promise<void> {
  return closeInTurn(container.getAll<ClosingPart>(TYPES.ClosingPart), {
    limitMs: CLOSE_PART_MS,
    warn: warnOnStderr,
  });
}

/**
 * What makes the store of `storage.driver` (docs/decisions/0038); the in-memory backend keeps files in its
 * own map whatever the driver, so that an app on it (the tests') writes nothing to a disk or a bucket. The
 * S3 adapter is imported only for the s3 driver: the AWS SDK is ~1 MB of the bundle, ~0.2 s of CPU to
 * load at every start otherwise (docs/decisions/0045).
 */
async function configuredFileStorage(
  config: AppConfig,
  persistence: Persistence,
): Promise<() => FileStorage> {
  const { files, largeObjects } = persistence;
  if (files) return () => files;
  const { driver, local, s3 } = config.storage;
  switch (driver) {
    case 'local':
      return () => new LocalDiskFileStorage(local.root ?? join(config.database.dataDir, 'files'));
    case 'postgres':
      return () => {
        if (!largeObjects) throw new Error('storage.driver postgres needs a database');
        return largeObjects;
      };
    case 's3': {
      const { S3FileStorage } = await import('./adapters/s3/s3-file-storage.ts');
      // The configuration refuses `s3` without a bucket, and one of the two credentials without the other.
      return () =>
        new S3FileStorage({
          bucket: s3.bucket!,
          region: s3.region,
          forcePathStyle: s3.forcePathStyle,
          ...(s3.endpoint ? { endpoint: s3.endpoint } : {}),
          ...(s3.accessKeyId && s3.secretAccessKey
            ? { credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey } }
            : {}),
        });
    }
  }
}
