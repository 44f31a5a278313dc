import { Container, type ResolutionContext, type ServiceIdentifier } from 'inversify';
import pino, { type Logger } from 'pino';
import { SystemClock } from './adapters/clock/system-clock.ts';
import type { AppConfig } from './adapters/config/config-schema.ts';
import { Argon2PasswordHasher } from './adapters/crypto/argon2-password-hasher.ts';
import { createHttpApp, type HttpApp } from './adapters/http/create-http-app.ts';
import type { HttpHandlers } from './adapters/http/http-app-dependencies.ts';
import { cachingPersistence } from './adapters/persistence/caching-persistence.ts';
import type { Persistence } from './adapters/persistence/persistence.ts';
import { createLoginThrottle } from './adapters/throttle/create-login-throttle.ts';
import { CachingAccessTokens } from './adapters/tokens/caching-access-tokens.ts';
import { JoseAccessTokens } from './adapters/tokens/jose-access-tokens.ts';
import { PasetoAccessTokens } from './adapters/tokens/paseto-access-tokens.ts';
import type { AuthSettings } from './application/auth/auth-settings.ts';
import { LoginHandler } from './application/auth/login.ts';
import { LogoutHandler } from './application/auth/logout.ts';
import { RefreshSessionHandler } from './application/auth/refresh-session.ts';
import { ResolveAccountabilityHandler } from './application/auth/resolve-accountability.ts';
import { TokenPairIssuer } from './application/auth/token-pair.ts';
import { ClearSchemaCacheHandler } from './application/collections/clear-schema-cache.ts';
import { CreateCollectionHandler } from './application/collections/create-collection.ts';
import { CreateFieldHandler } from './application/collections/create-field.ts';
import { DeleteCollectionHandler } from './application/collections/delete-collection.ts';
import { DeleteFieldHandler } from './application/collections/delete-field.ts';
import { GetCollectionHandler } from './application/collections/get-collection.ts';
import { GetFieldHandler } from './application/collections/get-field.ts';
import { ListCollectionsHandler } from './application/collections/list-collections.ts';
import { ListFieldsHandler } from './application/collections/list-fields.ts';
import { CreateItemsHandler } from './application/items/create-items.ts';
import { DeleteItemsHandler } from './application/items/delete-items.ts';
import { GetItemHandler } from './application/items/get-item.ts';
import { ListItemsHandler } from './application/items/list-items.ts';
import { ReadBack } from './application/items/read-back.ts';
import { ReadRules } from './application/items/read-rules.ts';
import { UpdateItemsHandler } from './application/items/update-items.ts';
import { WriteRules } from './application/items/write-rules.ts';
import { LastAdminGuard } from './application/last-admin-guard.ts';
import { CreatePermissionHandler } from './application/permissions/create-permission.ts';
import { DeletePermissionHandler } from './application/permissions/delete-permission.ts';
import { GetPermissionHandler } from './application/permissions/get-permission.ts';
import { ListPermissionsHandler } from './application/permissions/list-permissions.ts';
import { PermissionValidator } from './application/permissions/permission-validator.ts';
import { UpdatePermissionHandler } from './application/permissions/update-permission.ts';
import type { AccessTokens } from './application/ports/access-tokens.ts';
import type { Clock } from './application/ports/clock.ts';
import type { DatabaseHealth } from './application/ports/database-health.ts';
import type { ItemStore } from './application/ports/item-store.ts';
import type { LoginThrottle } from './application/ports/login-throttle.ts';
import type { PasswordHasher } from './application/ports/password-hasher.ts';
import type { PermissionRepository } from './application/ports/permission-repository.ts';
import type { RefreshTokenRepository } from './application/ports/refresh-token-repository.ts';
import type { RoleRepository } from './application/ports/role-repository.ts';
import type { SchemaCatalog, SchemaEditor } from './application/ports/schema-catalog.ts';
import type { UserRepository } from './application/ports/user-repository.ts';
import { CreateRoleHandler } from './application/roles/create-role.ts';
import { DeleteRoleHandler } from './application/roles/delete-role.ts';
import { GetRoleHandler } from './application/roles/get-role.ts';
import { ListRolesHandler } from './application/roles/list-roles.ts';
import { UpdateRoleHandler } from './application/roles/update-role.ts';
import { CheckHealthHandler } from './application/server/check-health.ts';
import { DescribeApiHandler } from './application/server/describe-api.ts';
import { GetServerInfoHandler } from './application/server/get-server-info.ts';
import { Readiness } from './application/server/readiness.ts';
import { BootstrapHandler } from './application/setup/bootstrap.ts';
import { CreateUserHandler } from './application/users/create-user.ts';
import { DeleteUserHandler } from './application/users/delete-user.ts';
import { GetCurrentUserHandler } from './application/users/get-current-user.ts';
import { GetUserHandler } from './application/users/get-user.ts';
import { ListUsersHandler } from './application/users/list-users.ts';
import { SetStaticTokenHandler } from './application/users/set-static-token.ts';
import { UpdateCurrentUserHandler } from './application/users/update-current-user.ts';
import { UpdateUserHandler } from './application/users/update-user.ts';
import { parseFilter } from './domain/query/parse-filter.ts';
import type { QueryLimits } from './domain/query/parse-item-query.ts';
import { VERSION } from './version.ts';

/** Identifiers of the ports and settings; handlers are identified by their own classes. */
export const TYPES = {
  Config: Symbol.for('Config'),
  Logger: Symbol.for('Logger'),
  Clock: Symbol.for('Clock'),
  Persistence: Symbol.for('Persistence'),
  UserRepository: Symbol.for('UserRepository'),
  RoleRepository: Symbol.for('RoleRepository'),
  RefreshTokenRepository: Symbol.for('RefreshTokenRepository'),
  DatabaseHealth: Symbol.for('DatabaseHealth'),
  PermissionRepository: Symbol.for('PermissionRepository'),
  SchemaCatalog: Symbol.for('SchemaCatalog'),
  SchemaEditor: Symbol.for('SchemaEditor'),
  ItemStore: Symbol.for('ItemStore'),
  QueryLimits: Symbol.for('QueryLimits'),
  PasswordHasher: Symbol.for('PasswordHasher'),
  LoginThrottle: Symbol.for('LoginThrottle'),
  AccessTokens: Symbol.for('AccessTokens'),
  AuthSettings: Symbol.for('AuthSettings'),
  StartedAt: Symbol.for('StartedAt'),
  Readiness: Symbol.for('Readiness'),
  HttpApp: Symbol.for('HttpApp'),
} as const;

/**
 * The composition root: the only place that knows every concrete class. Everything is a singleton,
 * so a test swaps an adapter with one `container.rebind(TYPES.X).toConstantValue(fake)` before first use.
 * `readiness`: ready unless the caller still has start-up work to do on the database (see main.ts).
 */
export function buildContainer(
  config: AppConfig,
  persistence: Persistence,
  readiness: Readiness = Readiness.ready(),
): Container {
  const container = new Container({ defaultScope: 'Singleton' });
  const constant = <T>(id: ServiceIdentifier<T>, value: T) => container.bind<T>(id).toConstantValue(value);
  const dynamic = <T>(id: ServiceIdentifier<T>, build: (get: <U>(id: ServiceIdentifier<U>) => U) => T) =>
    container.bind<T>(id).toDynamicValue((ctx: ResolutionContext) => build((dep) => ctx.get(dep)));

  constant<AppConfig>(TYPES.Config, config);
  // The raw persistence stays bound for whoever needs to bypass the caches; the ports read through them.
  constant<Persistence>(TYPES.Persistence, persistence);
  const cached = cachingPersistence(persistence);
  constant<UserRepository>(TYPES.UserRepository, cached.users);
  constant<RoleRepository>(TYPES.RoleRepository, cached.roles);
  constant<RefreshTokenRepository>(TYPES.RefreshTokenRepository, cached.refreshTokens);
  constant<DatabaseHealth>(TYPES.DatabaseHealth, persistence.health);
  constant<PermissionRepository>(TYPES.PermissionRepository, cached.permissions);
  constant<SchemaCatalog>(TYPES.SchemaCatalog, persistence.schema);
  constant<SchemaEditor>(TYPES.SchemaEditor, persistence.schemaEditor);
  constant<ItemStore>(TYPES.ItemStore, persistence.items);
  constant<QueryLimits>(TYPES.QueryLimits, {
    limitDefault: config.query.limitDefault,
    limitMax: config.query.limitMax,
  });
  constant<Date>(TYPES.StartedAt, new Date());
  constant<Readiness>(TYPES.Readiness, readiness);
  constant<AuthSettings>(TYPES.AuthSettings, {
    accessTokenTtlMs: config.auth.accessTokenTTL,
    refreshTokenTtlMs: config.auth.refreshTokenTTL,
    refreshReuseGraceMs: config.auth.refreshReuseGrace,
    checkSessionOnEachRequest: config.auth.checkSessionOnEachRequest,
  });
  dynamic<Logger>(TYPES.Logger, () =>
    pino({ level: config.log.level, base: undefined, timestamp: pino.stdTimeFunctions.isoTime }),
  );
  dynamic<Clock>(TYPES.Clock, () => new SystemClock());
  dynamic<LoginThrottle>(TYPES.LoginThrottle, () =>
    createLoginThrottle(config.auth.throttle, config.database),
  );
  dynamic<PasswordHasher>(
    TYPES.PasswordHasher,
    () => new Argon2PasswordHasher({ concurrency: config.auth.hashConcurrency }),
  );
  dynamic<AccessTokens>(TYPES.AccessTokens, () => {
    const options = {
      secret: config.auth.secret,
      issuer: config.auth.issuer,
      ttlMs: config.auth.accessTokenTTL,
    };
    const verifier =
      config.auth.tokenFormat === 'paseto' ? new PasetoAccessTokens(options) : new JoseAccessTokens(options);
    return new CachingAccessTokens(verifier);
  });

  dynamic(
    TokenPairIssuer,
    (get) =>
      new TokenPairIssuer(
        get(TYPES.AccessTokens),
        get(TYPES.RefreshTokenRepository),
        get(TYPES.AuthSettings),
      ),
  );
  dynamic(
    LoginHandler,
    (get) =>
      new LoginHandler(
        get(TYPES.UserRepository),
        get(TYPES.PasswordHasher),
        get(TokenPairIssuer),
        get(TYPES.Clock),
        get(TYPES.LoginThrottle),
      ),
  );
  dynamic(
    RefreshSessionHandler,
    (get) =>
      new RefreshSessionHandler(
        get(TYPES.RefreshTokenRepository),
        get(TYPES.UserRepository),
        get(TokenPairIssuer),
        get(TYPES.Clock),
        get(TYPES.AuthSettings),
      ),
  );
  dynamic(LogoutHandler, (get) => new LogoutHandler(get(TYPES.RefreshTokenRepository), get(TYPES.Clock)));
  dynamic(
    ResolveAccountabilityHandler,
    (get) =>
      new ResolveAccountabilityHandler(
        get(TYPES.AccessTokens),
        get(TYPES.UserRepository),
        get(TYPES.RoleRepository),
        get(TYPES.RefreshTokenRepository),
        get(TYPES.Clock),
        get(TYPES.AuthSettings),
      ),
  );

  dynamic(LastAdminGuard, (get) => new LastAdminGuard(get(TYPES.UserRepository), get(TYPES.RoleRepository)));
  dynamic(ListUsersHandler, (get) => new ListUsersHandler(get(TYPES.UserRepository)));
  dynamic(GetUserHandler, (get) => new GetUserHandler(get(TYPES.UserRepository)));
  dynamic(
    CreateUserHandler,
    (get) =>
      new CreateUserHandler(
        get(TYPES.UserRepository),
        get(TYPES.RoleRepository),
        get(TYPES.PasswordHasher),
        get(TYPES.Clock),
      ),
  );
  dynamic(
    UpdateUserHandler,
    (get) =>
      new UpdateUserHandler(
        get(TYPES.UserRepository),
        get(TYPES.RoleRepository),
        get(TYPES.RefreshTokenRepository),
        get(TYPES.PasswordHasher),
        get(TYPES.Clock),
        get(LastAdminGuard),
      ),
  );
  dynamic(DeleteUserHandler, (get) => new DeleteUserHandler(get(TYPES.UserRepository), get(LastAdminGuard)));
  dynamic(GetCurrentUserHandler, (get) => new GetCurrentUserHandler(get(TYPES.UserRepository)));
  dynamic(
    UpdateCurrentUserHandler,
    (get) =>
      new UpdateCurrentUserHandler(
        get(TYPES.UserRepository),
        get(TYPES.RefreshTokenRepository),
        get(TYPES.PasswordHasher),
        get(TYPES.Clock),
      ),
  );
  dynamic(SetStaticTokenHandler, (get) => new SetStaticTokenHandler(get(TYPES.UserRepository)));

  dynamic(ListRolesHandler, (get) => new ListRolesHandler(get(TYPES.RoleRepository)));
  dynamic(GetRoleHandler, (get) => new GetRoleHandler(get(TYPES.RoleRepository)));
  dynamic(CreateRoleHandler, (get) => new CreateRoleHandler(get(TYPES.RoleRepository)));
  dynamic(UpdateRoleHandler, (get) => new UpdateRoleHandler(get(TYPES.RoleRepository), get(LastAdminGuard)));
  dynamic(DeleteRoleHandler, (get) => new DeleteRoleHandler(get(TYPES.RoleRepository), get(LastAdminGuard)));

  dynamic(
    CheckHealthHandler,
    (get) => new CheckHealthHandler(get(TYPES.DatabaseHealth), get(TYPES.Readiness)),
  );
  dynamic(
    GetServerInfoHandler,
    (get) => new GetServerInfoHandler(VERSION, get(TYPES.StartedAt), get(TYPES.Clock)),
  );
  dynamic(
    DescribeApiHandler,
    (get) =>
      new DescribeApiHandler(get(TYPES.SchemaCatalog), get(ReadRules), get(WriteRules), get(TYPES.Clock), {
        version: VERSION,
        limits: get(TYPES.QueryLimits),
        batchMax: config.query.batchMax,
      }),
  );
  dynamic(
    BootstrapHandler,
    (get) =>
      new BootstrapHandler(get(TYPES.UserRepository), get(TYPES.RoleRepository), get(CreateUserHandler)),
  );

  dynamic(ReadRules, (get) => new ReadRules(get(TYPES.PermissionRepository)));
  dynamic(
    ListItemsHandler,
    (get) =>
      new ListItemsHandler(
        get(TYPES.SchemaCatalog),
        get(ReadRules),
        get(TYPES.ItemStore),
        get(TYPES.Clock),
        get(TYPES.QueryLimits),
      ),
  );
  dynamic(
    GetItemHandler,
    (get) =>
      new GetItemHandler(
        get(TYPES.SchemaCatalog),
        get(ReadRules),
        get(TYPES.ItemStore),
        get(TYPES.Clock),
        get(TYPES.QueryLimits),
      ),
  );

  dynamic(WriteRules, (get) => new WriteRules(get(TYPES.PermissionRepository)));
  dynamic(ReadBack, (get) => new ReadBack(get(ReadRules), get(TYPES.ItemStore), get(TYPES.QueryLimits)));
  const batchMax = config.query.batchMax;
  dynamic(
    CreateItemsHandler,
    (get) =>
      new CreateItemsHandler(
        get(TYPES.SchemaCatalog),
        get(WriteRules),
        get(TYPES.ItemStore),
        get(ReadBack),
        get(TYPES.Clock),
        batchMax,
      ),
  );
  dynamic(
    UpdateItemsHandler,
    (get) =>
      new UpdateItemsHandler(
        get(TYPES.SchemaCatalog),
        get(ReadRules),
        get(WriteRules),
        get(TYPES.ItemStore),
        get(ReadBack),
        get(TYPES.Clock),
        batchMax,
      ),
  );
  dynamic(
    DeleteItemsHandler,
    (get) =>
      new DeleteItemsHandler(
        get(TYPES.SchemaCatalog),
        get(ReadRules),
        get(WriteRules),
        get(TYPES.ItemStore),
        get(TYPES.Clock),
        batchMax,
      ),
  );

  dynamic(ListCollectionsHandler, (get) => new ListCollectionsHandler(get(TYPES.SchemaCatalog)));
  dynamic(GetCollectionHandler, (get) => new GetCollectionHandler(get(TYPES.SchemaCatalog)));
  dynamic(CreateCollectionHandler, (get) => new CreateCollectionHandler(get(TYPES.SchemaEditor)));
  dynamic(
    DeleteCollectionHandler,
    (get) => new DeleteCollectionHandler(get(TYPES.SchemaCatalog), get(TYPES.SchemaEditor)),
  );
  dynamic(ListFieldsHandler, (get) => new ListFieldsHandler(get(TYPES.SchemaCatalog)));
  dynamic(GetFieldHandler, (get) => new GetFieldHandler(get(TYPES.SchemaCatalog)));
  dynamic(
    CreateFieldHandler,
    (get) => new CreateFieldHandler(get(TYPES.SchemaCatalog), get(TYPES.SchemaEditor)),
  );
  dynamic(
    DeleteFieldHandler,
    (get) => new DeleteFieldHandler(get(TYPES.SchemaCatalog), get(TYPES.SchemaEditor)),
  );
  dynamic(ClearSchemaCacheHandler, (get) => new ClearSchemaCacheHandler(get(TYPES.SchemaCatalog)));

  dynamic(
    PermissionValidator,
    (get) => new PermissionValidator(get(TYPES.RoleRepository), get(TYPES.SchemaCatalog), parseFilter),
  );
  dynamic(ListPermissionsHandler, (get) => new ListPermissionsHandler(get(TYPES.PermissionRepository)));
  dynamic(GetPermissionHandler, (get) => new GetPermissionHandler(get(TYPES.PermissionRepository)));
  dynamic(
    CreatePermissionHandler,
    (get) => new CreatePermissionHandler(get(TYPES.PermissionRepository), get(PermissionValidator)),
  );
  dynamic(
    UpdatePermissionHandler,
    (get) => new UpdatePermissionHandler(get(TYPES.PermissionRepository), get(PermissionValidator)),
  );
  dynamic(DeletePermissionHandler, (get) => new DeletePermissionHandler(get(TYPES.PermissionRepository)));

  dynamic<HttpApp>(TYPES.HttpApp, (get) => {
    const handlers: HttpHandlers = {
      login: get(LoginHandler),
      refreshSession: get(RefreshSessionHandler),
      logout: get(LogoutHandler),
      resolveAccountability: get(ResolveAccountabilityHandler),
      listUsers: get(ListUsersHandler),
      getUser: get(GetUserHandler),
      createUser: get(CreateUserHandler),
      updateUser: get(UpdateUserHandler),
      deleteUser: get(DeleteUserHandler),
      getCurrentUser: get(GetCurrentUserHandler),
      updateCurrentUser: get(UpdateCurrentUserHandler),
      listRoles: get(ListRolesHandler),
      getRole: get(GetRoleHandler),
      createRole: get(CreateRoleHandler),
      updateRole: get(UpdateRoleHandler),
      deleteRole: get(DeleteRoleHandler),
      checkHealth: get(CheckHealthHandler),
      getServerInfo: get(GetServerInfoHandler),
      describeApi: get(DescribeApiHandler),
      listItems: get(ListItemsHandler),
      getItem: get(GetItemHandler),
      createItems: get(CreateItemsHandler),
      updateItems: get(UpdateItemsHandler),
      deleteItems: get(DeleteItemsHandler),
      listCollections: get(ListCollectionsHandler),
      getCollection: get(GetCollectionHandler),
      createCollection: get(CreateCollectionHandler),
      deleteCollection: get(DeleteCollectionHandler),
      listFields: get(ListFieldsHandler),
      getField: get(GetFieldHandler),
      createField: get(CreateFieldHandler),
      deleteField: get(DeleteFieldHandler),
      clearSchemaCache: get(ClearSchemaCacheHandler),
      listPermissions: get(ListPermissionsHandler),
      getPermission: get(GetPermissionHandler),
      createPermission: get(CreatePermissionHandler),
      updatePermission: get(UpdatePermissionHandler),
      deletePermission: get(DeletePermissionHandler),
    };
    return createHttpApp({
      handlers,
      readiness: get(TYPES.Readiness),
      logger: get(TYPES.Logger),
      settings: {
        profile: config.http.profile,
        accessTokenTtlMs: config.auth.accessTokenTTL,
        bodyLimit: config.http.bodyLimit,
        allowQueryToken: config.auth.allowQueryToken,
        maxQueryLength: config.http.maxQueryLength,
        trustProxy: config.http.trustProxy,
        cors: {
          enabled: config.http.cors.enabled,
          origins: config.http.cors.origins,
          credentials: config.http.cors.credentials,
          maxAgeMs: config.http.cors.maxAge,
        },
      },
    });
  });
  return container;
}
