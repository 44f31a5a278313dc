import { ContainerModule } from 'inversify';
import { z } from 'zod';
import type { HttpRoutes } from '../adapters/http/http-routes.ts';
import type { HttpContext } from '../adapters/http/http-state.ts';
import { itemQuery } from '../adapters/http/item-query-string.ts';
import { permissionAnswer } from '../adapters/http/openapi/answer-schemas.ts';
import { systemQueryParameters } from '../adapters/http/openapi/system-query-parameters.ts';
import { mustBe } from '../adapters/http/payload-issue-message.ts';
import { uuidText } from '../adapters/http/uuid.ts';
import { requireAdmin } from '../application/access.ts';
import { CreatePermissionHandler } from '../application/permissions/create-permission.ts';
import { DeletePermissionHandler } from '../application/permissions/delete-permission.ts';
import { GetPermissionHandler } from '../application/permissions/get-permission.ts';
import { ListPermissionsHandler } from '../application/permissions/list-permissions.ts';
import { PermissionValidator } from '../application/permissions/permission-validator.ts';
import { QueryPermissionsHandler } from '../application/permissions/query-permissions.ts';
import { UpdatePermissionHandler } from '../application/permissions/update-permission.ts';
import { selectFields } from '../application/system-queries/select-fields.ts';
import { PERMISSIONS_COLLECTION } from '../application/system-queries/system-collections.ts';
import { parseSystemFields } from '../application/system-queries/system-list-query.ts';
import { parseFilter } from '../domain/query/parse-filter.ts';
import type { QueryLimits } from '../domain/query/parse-item-query.ts';
import { factoryBinder } from './factory-binder.ts';
import { TYPES } from './service-identifiers.ts';

const jsonObject = z
  .record(z.string(), z.unknown(), { error: mustBe('a JSON object or null') })
  .nullable()
  .optional();

/**
 * A list of names, or Directus's spelling of one: the comma-separated string it stores (`"*"`, `"id,title"`),
 * read as Directus reads it back — split at each comma, `""` the empty list — but each name trimmed: Directus
 * keeps the space of `"id, title"` and grants a ` title` no field has, which no one means.
 */
const permissionFields = z
  .union(
    [
      z.array(z.string()),
      z.string().transform((names) => (names === '' ? [] : names.split(',').map((name) => name.trim()))),
    ],
    {
      error: mustBe('a list of field names, a comma-separated string of them, or null'),
    },
  )
  .nullable()
  .optional()
  .describe(
    'Field names, or `["*"]` for all; Directus\'s comma-separated string (`"*"`, `"id,title"`) is read as that list.',
  );

// Only the wire shape is checked here (INVALID_PAYLOAD). Whether the action is one, the role exists and
// the filters fit the collection are domain rules, answered FAILED_VALIDATION by the handlers.
const createPermissionBody = z.strictObject({
  role: uuidText('a role id (UUID) or null').nullable().describe('A role id, or null for the public role.'),
  collection: z.string(),
  action: z.string().describe('`create`, `read`, `update` or `delete`.'),
  permissions: jsonObject,
  validation: jsonObject,
  presets: jsonObject,
  fields: permissionFields,
});

const updatePermissionBody = createPermissionBody.partial();

const permissionId = z.uuid().describe("The permission's id.");

/** /permissions, for admins: who may do what to which rows and fields of a collection. */
export const permissionsModule = new ContainerModule((options) => {
  const bind = factoryBinder(options);
  bind(
    PermissionValidator,
    (get) => new PermissionValidator(get(TYPES.RoleRepository), get(TYPES.SchemaCatalog), parseFilter),
  );
  bind(ListPermissionsHandler, (get) => new ListPermissionsHandler(get(TYPES.PermissionRepository)));
  bind(
    QueryPermissionsHandler,
    (get) =>
      new QueryPermissionsHandler(get(TYPES.PermissionRepository), get(TYPES.Clock), get(TYPES.QueryLimits)),
  );
  bind(
    GetPermissionHandler,
    (get) => new GetPermissionHandler(get(TYPES.PermissionRepository), get(TYPES.QueryLimits)),
  );
  bind(
    CreatePermissionHandler,
    (get) => new CreatePermissionHandler(get(TYPES.PermissionRepository), get(PermissionValidator)),
  );
  bind(
    UpdatePermissionHandler,
    (get) => new UpdatePermissionHandler(get(TYPES.PermissionRepository), get(PermissionValidator)),
  );
  bind(DeletePermissionHandler, (get) => new DeletePermissionHandler(get(TYPES.PermissionRepository)));

  bind<HttpRoutes>(TYPES.HttpRoutes, (get) => {
    const limits = get<QueryLimits>(TYPES.QueryLimits);
    const queryPermissions = get(QueryPermissionsHandler);
    const getPermission = get(GetPermissionHandler);
    const createPermission = get(CreatePermissionHandler);
    const updatePermission = get(UpdatePermissionHandler);
    const deletePermission = get(DeletePermissionHandler);
    return {
      register(router, { readBody, authenticated, respond }) {
        /**
         * The answer of a write shaped by `fields`, as a read of one record is (docs/api.md §7): parsed once
         * the caller's right is established and before the write, so that a bad one changes nothing.
         */
        const answerFields = (ctx: HttpContext) =>
          parseSystemFields(itemQuery(ctx), PERMISSIONS_COLLECTION, limits);
        router.get(
          '/permissions',
          authenticated(async (ctx, caller) => {
            const { data, meta } = await queryPermissions.execute(caller, { query: itemQuery(ctx) });
            respond.sendJson(ctx, JSON.stringify(data), meta);
          }),
        );
        router.post(
          '/permissions',
          authenticated(async (ctx, caller) => {
            const body = await readBody(ctx, createPermissionBody);
            requireAdmin(caller);
            const fields = answerFields(ctx);
            respond.send(ctx, selectFields(await createPermission.execute(caller, body), fields));
          }),
        );
        router.get(
          '/permissions/:id',
          authenticated(async (ctx, caller) =>
            respond.send(
              ctx,
              await getPermission.execute(caller, { id: ctx.params.id!, query: itemQuery(ctx) }),
            ),
          ),
        );
        router.patch(
          '/permissions/:id',
          authenticated(async (ctx, caller) => {
            const body = await readBody(ctx, updatePermissionBody);
            requireAdmin(caller);
            const fields = answerFields(ctx);
            const permission = await updatePermission.execute(caller, { id: ctx.params.id!, changes: body });
            respond.send(ctx, selectFields(permission, fields));
          }),
        );
        router.delete(
          '/permissions/:id',
          authenticated(async (ctx, caller) => {
            await deletePermission.execute(caller, { id: ctx.params.id! });
            respond.noContent(ctx);
          }),
        );
      },
      api: () => {
        const query = systemQueryParameters(limits);
        const permission = { status: 200, description: 'The permission.', body: permissionAnswer };
        const admin = { tag: 'permissions', audience: 'admin' } as const;
        const byId = { ...admin, path: '/permissions/:id', pathParameters: { id: permissionId } } as const;
        return {
          tags: [
            {
              name: 'permissions',
              description: 'Permissions, for admins: which rows and fields of a collection a role may use.',
            },
          ],
          schemas: { Permission: permissionAnswer },
          operations: [
            {
              ...admin,
              method: 'get',
              path: '/permissions',
              operationId: 'listPermissions',
              summary: 'List permissions',
              query: query.list,
              answers: [
                {
                  status: 200,
                  description: 'The permissions the query selects, every field unless `fields` narrows them.',
                  body: permissionAnswer,
                  form: 'list',
                },
              ],
              errors: [400, 401, 403],
            },
            {
              ...admin,
              method: 'post',
              path: '/permissions',
              operationId: 'createPermission',
              query: query.single,
              summary: 'Create a permission',
              body: createPermissionBody,
              answers: [{ ...permission, description: 'The created permission (absent members are null).' }],
              errors: [400, 401, 403, 413, 415],
            },
            {
              ...byId,
              method: 'get',
              operationId: 'readPermission',
              summary: 'Read a permission',
              query: query.single,
              answers: [permission],
              errors: [400, 401, 403, 404],
            },
            {
              ...byId,
              method: 'patch',
              operationId: 'updatePermission',
              query: query.single,
              summary: 'Change a permission',
              body: updatePermissionBody,
              answers: [{ ...permission, description: 'The changed permission.' }],
              errors: [400, 401, 403, 404, 413, 415],
            },
            {
              ...byId,
              method: 'delete',
              operationId: 'deletePermission',
              summary: 'Delete a permission',
              answers: [{ status: 204, description: 'Deleted.' }],
              errors: [401, 403, 404],
            },
          ],
        };
      },
    };
  });
});
