import type { Router } from '@koa/router';
import { z } from 'zod';
import type { CreatePermissionHandler } from '../../../application/permissions/create-permission.ts';
import type { DeletePermissionHandler } from '../../../application/permissions/delete-permission.ts';
import type { GetPermissionHandler } from '../../../application/permissions/get-permission.ts';
import type { ListPermissionsHandler } from '../../../application/permissions/list-permissions.ts';
import type { UpdatePermissionHandler } from '../../../application/permissions/update-permission.ts';
import type { HttpState } from '../http-state.ts';
import { UUID_PATTERN } from '../uuid.ts';
import type { RouteKit } from './route-kit.ts';

/** The handlers behind /permissions; part of HttpHandlers. */
export type PermissionHandlers = {
  listPermissions: ListPermissionsHandler;
  getPermission: GetPermissionHandler;
  createPermission: CreatePermissionHandler;
  updatePermission: UpdatePermissionHandler;
  deletePermission: DeletePermissionHandler;
};

const jsonObject = z.record(z.string(), z.unknown()).nullable().optional();

// Only the wire shape is checked here (INVALID_PAYLOAD). Whether the action is one, the role exists and
// the filters fit the collection are domain rules, answered FAILED_VALIDATION by the handlers.
const createPermissionBody = z.strictObject({
  role: z.string().regex(UUID_PATTERN, 'Must be a role id (UUID) or null.').nullable(),
  collection: z.string(),
  action: z.string(),
  permissions: jsonObject,
  validation: jsonObject,
  presets: jsonObject,
  fields: z.array(z.string()).nullable().optional(),
});

const updatePermissionBody = createPermissionBody.partial();

export function registerPermissionRoutes(
  router: Router<HttpState>,
  {
    handlers,
    readBody,
    authenticated,
    respond,
  }: Omit<RouteKit, 'handlers'> & { handlers: PermissionHandlers },
): void {
  router.get(
    '/permissions',
    authenticated(async (ctx, caller) => respond.send(ctx, await handlers.listPermissions.execute(caller))),
  );
  router.post(
    '/permissions',
    authenticated(async (ctx, caller) => {
      const body = await readBody(ctx, createPermissionBody);
      respond.send(ctx, await handlers.createPermission.execute(caller, body));
    }),
  );
  router.get(
    '/permissions/:id',
    authenticated(async (ctx, caller) =>
      respond.send(ctx, await handlers.getPermission.execute(caller, { id: ctx.params.id! })),
    ),
  );
  router.patch(
    '/permissions/:id',
    authenticated(async (ctx, caller) => {
      const body = await readBody(ctx, updatePermissionBody);
      respond.send(
        ctx,
        await handlers.updatePermission.execute(caller, { id: ctx.params.id!, changes: body }),
      );
    }),
  );
  router.delete(
    '/permissions/:id',
    authenticated(async (ctx, caller) => {
      await handlers.deletePermission.execute(caller, { id: ctx.params.id! });
      respond.noContent(ctx);
    }),
  );
}
