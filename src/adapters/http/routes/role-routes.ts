import type { Router } from '@koa/router';
import { z } from 'zod';
import type { HttpState } from '../http-state.ts';
import type { RouteKit } from './route-kit.ts';

const createRoleBody = z.strictObject({
  name: z.string(),
  description: z.string().nullable().optional(),
  admin_access: z.boolean().optional(),
});

const updateRoleBody = createRoleBody.partial();

export function registerRoleRoutes(
  router: Router<HttpState>,
  { handlers, readBody, authenticated, respond }: RouteKit,
): void {
  router.get(
    '/roles',
    authenticated(async (ctx, caller) => respond.send(ctx, await handlers.listRoles.execute(caller))),
  );
  router.post(
    '/roles',
    authenticated(async (ctx, caller) => {
      const body = await readBody(ctx, createRoleBody);
      respond.send(ctx, await handlers.createRole.execute(caller, body));
    }),
  );
  router.get(
    '/roles/:id',
    authenticated(async (ctx, caller) =>
      respond.send(ctx, await handlers.getRole.execute(caller, { id: ctx.params.id! })),
    ),
  );
  router.patch(
    '/roles/:id',
    authenticated(async (ctx, caller) => {
      const body = await readBody(ctx, updateRoleBody);
      respond.send(ctx, await handlers.updateRole.execute(caller, { id: ctx.params.id!, changes: body }));
    }),
  );
  router.delete(
    '/roles/:id',
    authenticated(async (ctx, caller) => {
      await handlers.deleteRole.execute(caller, { id: ctx.params.id! });
      respond.noContent(ctx);
    }),
  );
}
