/**
 * Identifiers of the ports, settings and HTTP parts; handlers are identified by their own classes.
 * A test swaps an adapter with `container.rebind(TYPES.X).toConstantValue(fake)` before first use.
 */
export const TYPES = {
  Config: Symbol.for('Config'),
  Logger: Symbol.for('Logger'),
  Clock: Symbol.for('Clock'),
  UserRepository: Symbol.for('UserRepository'),
  RoleRepository: Symbol.for('RoleRepository'),
  RefreshTokenRepository: Symbol.for('RefreshTokenRepository'),
  DatabaseHealth: Symbol.for('DatabaseHealth'),
  PermissionRepository: Symbol.for('PermissionRepository'),
  SchemaCatalog: Symbol.for('SchemaCatalog'),
  SchemaEditor: Symbol.for('SchemaEditor'),
  ItemStore: Symbol.for('ItemStore'),
  ActivityLog: Symbol.for('ActivityLog'),
  FileStorage: Symbol.for('FileStorage'),
  UnfinishedUploads: Symbol.for('UnfinishedUploads'),
  ImageTransformer: Symbol.for('ImageTransformer'),
  QueryLimits: Symbol.for('QueryLimits'),
  PasswordHasher: Symbol.for('PasswordHasher'),
  LoginThrottle: Symbol.for('LoginThrottle'),
  AccessTokens: Symbol.for('AccessTokens'),
  AuthSettings: Symbol.for('AuthSettings'),
  StartedAt: Symbol.for('StartedAt'),
  Readiness: Symbol.for('Readiness'),
  ChangeFeed: Symbol.for('ChangeFeed'),
  ItemEventFeed: Symbol.for('ItemEventFeed'),
  CollectionWatch: Symbol.for('CollectionWatch'),
  Metrics: Symbol.for('Metrics'),
  ItemSubscriptions: Symbol.for('ItemSubscriptions'),
  /** One per area module, all resolved together (`getAll`) by the HTTP app. */
  HttpRoutes: Symbol.for('HttpRoutes'),
  HttpApp: Symbol.for('HttpApp'),
  CallerConcurrencyLimit: Symbol.for('CallerConcurrencyLimit'),
  /**
   * What a module opened beside the persistence (the upload locks' pool), one per such module, all closed
   * together (`getAll`, `closeServerParts`) when the server stops.
   */
  ClosingPart: Symbol.for('ClosingPart'),
} as const;
