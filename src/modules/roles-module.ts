import { ContainerModule } from 'inversify';
import { z } from 'zod';
import type { HttpRoutes } from '../adapters/http/http-routes.ts';
import { LastAdminGuard } from '../application/last-admin-guard.ts';
import { CreateRoleHandler } from '../application/roles/create-role.ts';
import { DeleteRoleHandler } from '../application/roles/delete-role.ts';
import { GetRoleHandler } from '../application/roles/get-role.ts';
import { ListRolesHandler } from '../application/roles/list-roles.ts';
import { UpdateRoleHandler } from '../application/roles/update-role.ts';
import { factoryBinder } from './factory-binder.ts';
import { TYPES } from './service-identifiers.ts';

const createRoleBody = z.strictObject({
  name: z.string(),
  description: z.string().nullable().optional(),
  admin_access: z.boolean().optional(),
});

const updateRoleBody = createRoleBody.partial();

/** /roles, for admins. The last-admin guard is bound by the users module. */
export const rolesModule = new ContainerModule((options) => {
  const bind = factoryBinder(options);
  bind(ListRolesHandler, (get) => new ListRolesHandler(get(TYPES.RoleRepository)));
  bind(GetRoleHandler, (get) => new GetRoleHandler(get(TYPES.RoleRepository)));
  bind(CreateRoleHandler, (get) => new CreateRoleHandler(get(TYPES.RoleRepository)));
  bind(UpdateRoleHandler, (get) => new UpdateRoleHandler(get(TYPES.RoleRepository), get(LastAdminGuard)));
  bind(DeleteRoleHandler, (get) => new DeleteRoleHandler(get(TYPES.RoleRepository), get(LastAdminGuard)));

  bind<HttpRoutes>(TYPES.HttpRoutes, (get) => {
    const listRoles = get(ListRolesHandler);
    const getRole = get(GetRoleHandler);
    const createRole = get(CreateRoleHandler);
    const updateRole = get(UpdateRoleHandler);
    const deleteRole = get(DeleteRoleHandler);
    return {
      register(router, { readBody, authenticated, respond }) {
        router.get(
          '/roles',
          authenticated(async (ctx, caller) => respond.send(ctx, await listRoles.execute(caller))),
        );
        router.post(
          '/roles',
          authenticated(async (ctx, caller) => {
            const body = await readBody(ctx, createRoleBody);
            respond.send(ctx, await createRole.execute(caller, body));
          }),
        );
        router.get(
          '/roles/:id',
          authenticated(async (ctx, caller) =>
            respond.send(ctx, await getRole.execute(caller, { id: ctx.params.id! })),
          ),
        );
        router.patch(
          '/roles/:id',
          authenticated(async (ctx, caller) => {
            const body = await readBody(ctx, updateRoleBody);
            respond.send(ctx, await updateRole.execute(caller, { id: ctx.params.id!, changes: body }));
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
    };
  });
});
