import { ContainerModule } from 'inversify';
import { z } from 'zod';
import type { HttpRoutes } from '../adapters/http/http-routes.ts';
import type { HttpContext } from '../adapters/http/http-state.ts';
import { itemQuery } from '../adapters/http/item-query-string.ts';
import { hasBody } from '../adapters/http/json-body.ts';
import { accessTokenAnswer, roleAnswer } from '../adapters/http/openapi/answer-schemas.ts';
import { systemQueryParameters } from '../adapters/http/openapi/system-query-parameters.ts';
import { requireAdmin } from '../application/access.ts';
import { LastAdminGuard } from '../application/last-admin-guard.ts';
import { CreateRoleHandler } from '../application/roles/create-role.ts';
import { DeleteRoleHandler } from '../application/roles/delete-role.ts';
import { GetRoleHandler } from '../application/roles/get-role.ts';
import { ListRolesHandler } from '../application/roles/list-roles.ts';
import { PreviewRoleHandler } from '../application/roles/preview-role.ts';
import { QueryRolesHandler } from '../application/roles/query-roles.ts';
import { UpdateRoleHandler } from '../application/roles/update-role.ts';
import { selectFields } from '../application/system-queries/select-fields.ts';
import { ROLES_COLLECTION } from '../application/system-queries/system-collections.ts';
import { parseSystemFields } from '../application/system-queries/system-list-query.ts';
import type { QueryLimits } from '../domain/query/parse-item-query.ts';
import { factoryBinder } from './factory-binder.ts';
import { TYPES } from './service-identifiers.ts';

// Lengths are domain rules (role-name.ts, role-description.ts) answering FAILED_VALIDATION; this schema
// only refuses what is not the wire shape (INVALID_PAYLOAD).
const createRoleBody = z.strictObject({
  name: z.string().describe('1 to 100 characters, trimmed.'),
  description: z.string().nullable().optional().describe('At most 1,000 characters.'),
  admin_access: z.boolean().optional(),
});

const updateRoleBody = createRoleBody.partial();

const roleId = z.uuid().describe("The role's id.");

/** A preview takes no options: no body, or an empty object. */
const previewBody = z.strictObject({});

/** /roles, for admins. The last-admin guard is bound by the users module. */
export const rolesModule = new ContainerModule((options) => {
  const bind = factoryBinder(options);
  bind(ListRolesHandler, (get) => new ListRolesHandler(get(TYPES.RoleRepository)));
  bind(
    QueryRolesHandler,
    (get) => new QueryRolesHandler(get(TYPES.RoleRepository), get(TYPES.Clock), get(TYPES.QueryLimits)),
  );
  bind(GetRoleHandler, (get) => new GetRoleHandler(get(TYPES.RoleRepository), get(TYPES.QueryLimits)));
  bind(CreateRoleHandler, (get) => new CreateRoleHandler(get(TYPES.RoleRepository)));
  bind(UpdateRoleHandler, (get) => new UpdateRoleHandler(get(TYPES.RoleRepository), get(LastAdminGuard)));
  bind(DeleteRoleHandler, (get) => new DeleteRoleHandler(get(TYPES.RoleRepository), get(LastAdminGuard)));
  bind(
    PreviewRoleHandler,
    (get) =>
      new PreviewRoleHandler(
        get(TYPES.RoleRepository),
        get(TYPES.AccessTokens),
        get(TYPES.ActivityLog),
        get(TYPES.Clock),
      ),
  );

  bind<HttpRoutes>(TYPES.HttpRoutes, (get) => {
    const limits = get<QueryLimits>(TYPES.QueryLimits);
    const queryRoles = get(QueryRolesHandler);
    const getRole = get(GetRoleHandler);
    const createRole = get(CreateRoleHandler);
    const updateRole = get(UpdateRoleHandler);
    const deleteRole = get(DeleteRoleHandler);
    const previewRole = get(PreviewRoleHandler);
    return {
      register(router, { readBody, authenticated, respond }) {
        const preview = (role: (ctx: HttpContext) => string | null) =>
          authenticated(async (ctx, caller) => {
            if (hasBody(ctx)) await readBody(ctx, previewBody);
            respond.accessToken(ctx, await previewRole.execute(caller, { role: role(ctx) }));
          });
        // Registered before /roles/:id/preview so that "public" is never taken for an id.
        router.post(
          '/roles/public/preview',
          preview(() => null),
        );
        router.post(
          '/roles/:id/preview',
          preview((ctx) => ctx.params.id!),
        );
        /**
         * The answer of a write shaped by `fields`, as a read of one record is (docs/api.md §7): parsed once
         * the caller's right is established and before the write, so that a bad one changes nothing.
         */
        const answerFields = (ctx: HttpContext) =>
          parseSystemFields(itemQuery(ctx), ROLES_COLLECTION, limits);
        router.get(
          '/roles',
          authenticated(async (ctx, caller) => {
            const { data, meta } = await queryRoles.execute(caller, { query: itemQuery(ctx) });
            respond.sendJson(ctx, JSON.stringify(data), meta);
          }),
        );
        router.post(
          '/roles',
          authenticated(async (ctx, caller) => {
            const body = await readBody(ctx, createRoleBody);
            requireAdmin(caller);
            const fields = answerFields(ctx);
            respond.send(ctx, selectFields(await createRole.execute(caller, body), fields));
          }),
        );
        router.get(
          '/roles/:id',
          authenticated(async (ctx, caller) =>
            respond.send(ctx, await getRole.execute(caller, { id: ctx.params.id!, query: itemQuery(ctx) })),
          ),
        );
        router.patch(
          '/roles/:id',
          authenticated(async (ctx, caller) => {
            const body = await readBody(ctx, updateRoleBody);
            requireAdmin(caller);
            const fields = answerFields(ctx);
            const role = await updateRole.execute(caller, { id: ctx.params.id!, changes: body });
            respond.send(ctx, selectFields(role, fields));
          }),
        );
        router.delete(
          '/roles/:id',
          authenticated(async (ctx, caller) => {
            await deleteRole.execute(caller, { id: ctx.params.id! });
            respond.noContent(ctx);
          }),
        );
      },
      api: ({ profile }) => {
        const query = systemQueryParameters(limits);
        const role = { status: 200, description: 'The role.', body: roleAnswer };
        const admin = { tag: 'roles', audience: 'admin' } as const;
        const byId = { ...admin, path: '/roles/:id', pathParameters: { id: roleId } } as const;
        const preview = {
          ...admin,
          method: 'post' as const,
          body: previewBody.optional(),
          answers: [
            {
              status: 200,
              description: 'An access token that reads as the role would, and changes nothing.',
              body: accessTokenAnswer(profile),
            },
          ],
        };
        return {
          tags: [{ name: 'roles', description: 'Roles, for admins: what users are granted through.' }],
          schemas: { Role: roleAnswer, AccessToken: accessTokenAnswer(profile) },
          operations: [
            {
              ...admin,
              method: 'get',
              path: '/roles',
              operationId: 'listRoles',
              summary: 'List roles',
              query: query.list,
              answers: [
                {
                  status: 200,
                  description: 'The roles the query selects, every field unless `fields` narrows them.',
                  body: roleAnswer,
                  form: 'list',
                },
              ],
              errors: [400, 401, 403],
            },
            {
              ...admin,
              method: 'post',
              path: '/roles',
              operationId: 'createRole',
              query: query.single,
              summary: 'Create a role',
              body: createRoleBody,
              answers: [{ ...role, description: 'The created role.' }],
              errors: [400, 401, 403, 409, 413, 415],
            },
            {
              ...byId,
              method: 'get',
              operationId: 'readRole',
              summary: 'Read a role',
              query: query.single,
              answers: [role],
              errors: [400, 401, 403, 404],
            },
            {
              ...byId,
              method: 'patch',
              operationId: 'updateRole',
              query: query.single,
              summary: 'Change a role',
              body: updateRoleBody,
              answers: [{ ...role, description: 'The changed role.' }],
              errors: [400, 401, 403, 404, 409, 413, 415],
            },
            {
              ...byId,
              method: 'delete',
              operationId: 'deleteRole',
              summary: 'Delete a role',
              description:
                'Its permissions are deleted; its users keep no role. The last role giving admin access to an active user stays (400 `LAST_ADMIN`).',
              answers: [{ status: 204, description: 'Deleted.' }],
              errors: [400, 401, 403, 404],
            },
            {
              ...preview,
              path: '/roles/:id/preview',
              pathParameters: { id: roleId },
              operationId: 'previewRole',
              summary: 'Preview a role',
              description:
                "An access token that acts as the role's users without being one of them: it reads what they may read and changes nothing (403 `FORBIDDEN`, `reason: PREVIEW`). Not refreshable; refused (401) once you are no active admin or the role is gone.",
              errors: [400, 401, 403, 404, 413, 415],
            },
            {
              ...preview,
              path: '/roles/public/preview',
              operationId: 'previewPublicRole',
              summary: 'Preview the public role',
              description:
                'As `POST /roles/{id}/preview`, for the public permissions: what a caller without a token may read.',
              errors: [400, 401, 403, 413, 415],
            },
          ],
        };
      },
    };
  });
});
