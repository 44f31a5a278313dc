import type { Logger } from 'pino';
import type { LoginHandler } from '../../application/auth/login.ts';
import type { LogoutHandler } from '../../application/auth/logout.ts';
import type { RefreshSessionHandler } from '../../application/auth/refresh-session.ts';
import type { ResolveAccountabilityHandler } from '../../application/auth/resolve-accountability.ts';
import type { ClearSchemaCacheHandler } from '../../application/collections/clear-schema-cache.ts';
import type { CreateCollectionHandler } from '../../application/collections/create-collection.ts';
import type { CreateFieldHandler } from '../../application/collections/create-field.ts';
import type { DeleteCollectionHandler } from '../../application/collections/delete-collection.ts';
import type { DeleteFieldHandler } from '../../application/collections/delete-field.ts';
import type { GetCollectionHandler } from '../../application/collections/get-collection.ts';
import type { GetFieldHandler } from '../../application/collections/get-field.ts';
import type { ListCollectionsHandler } from '../../application/collections/list-collections.ts';
import type { ListFieldsHandler } from '../../application/collections/list-fields.ts';
import type { CreateItemsHandler } from '../../application/items/create-items.ts';
import type { DeleteItemsHandler } from '../../application/items/delete-items.ts';
import type { GetItemHandler } from '../../application/items/get-item.ts';
import type { ListItemsHandler } from '../../application/items/list-items.ts';
import type { UpdateItemsHandler } from '../../application/items/update-items.ts';
import type { CreateRoleHandler } from '../../application/roles/create-role.ts';
import type { DeleteRoleHandler } from '../../application/roles/delete-role.ts';
import type { GetRoleHandler } from '../../application/roles/get-role.ts';
import type { ListRolesHandler } from '../../application/roles/list-roles.ts';
import type { UpdateRoleHandler } from '../../application/roles/update-role.ts';
import type { CheckHealthHandler } from '../../application/server/check-health.ts';
import type { DescribeApiHandler } from '../../application/server/describe-api.ts';
import type { GetServerInfoHandler } from '../../application/server/get-server-info.ts';
import type { Readiness } from '../../application/server/readiness.ts';
import type { CreateUserHandler } from '../../application/users/create-user.ts';
import type { DeleteUserHandler } from '../../application/users/delete-user.ts';
import type { GetCurrentUserHandler } from '../../application/users/get-current-user.ts';
import type { GetUserHandler } from '../../application/users/get-user.ts';
import type { ListUsersHandler } from '../../application/users/list-users.ts';
import type { UpdateCurrentUserHandler } from '../../application/users/update-current-user.ts';
import type { UpdateUserHandler } from '../../application/users/update-user.ts';
import type { CorsSettings } from './cors.ts';
import type { PermissionHandlers } from './routes/permission-routes.ts';

export type HttpHandlers = PermissionHandlers & {
  login: LoginHandler;
  refreshSession: RefreshSessionHandler;
  logout: LogoutHandler;
  resolveAccountability: ResolveAccountabilityHandler;
  listUsers: ListUsersHandler;
  getUser: GetUserHandler;
  createUser: CreateUserHandler;
  updateUser: UpdateUserHandler;
  deleteUser: DeleteUserHandler;
  getCurrentUser: GetCurrentUserHandler;
  updateCurrentUser: UpdateCurrentUserHandler;
  listRoles: ListRolesHandler;
  getRole: GetRoleHandler;
  createRole: CreateRoleHandler;
  updateRole: UpdateRoleHandler;
  deleteRole: DeleteRoleHandler;
  checkHealth: CheckHealthHandler;
  getServerInfo: GetServerInfoHandler;
  describeApi: DescribeApiHandler;
  listItems: ListItemsHandler;
  getItem: GetItemHandler;
  createItems: CreateItemsHandler;
  updateItems: UpdateItemsHandler;
  deleteItems: DeleteItemsHandler;
  listCollections: ListCollectionsHandler;
  getCollection: GetCollectionHandler;
  createCollection: CreateCollectionHandler;
  deleteCollection: DeleteCollectionHandler;
  listFields: ListFieldsHandler;
  getField: GetFieldHandler;
  createField: CreateFieldHandler;
  deleteField: DeleteFieldHandler;
  clearSchemaCache: ClearSchemaCacheHandler;
};

export type HttpSettings = {
  profile: 'plain' | 'directus';
  /** Access-token lifetime: the directus profile answers it as `expires`. */
  accessTokenTtlMs: number;
  /** Largest JSON body accepted, in koa-bodyparser's notation (`1mb`) or bytes. */
  bodyLimit: string | number;
  allowQueryToken: boolean;
  /** Bytes of query string accepted (API.md §4a); longer is 414. */
  maxQueryLength: number;
  /** Take the client address from `X-Forwarded-For` (Koa's `proxy`). */
  trustProxy: boolean;
  cors: CorsSettings;
};

/** All the HTTP adapter needs; the composition root builds it, tests may build it by hand. */
export type HttpAppDependencies = {
  handlers: HttpHandlers;
  /** Until it says ready, every request but the health check is answered 503. */
  readiness: Readiness;
  settings: HttpSettings;
  logger: Logger;
};
