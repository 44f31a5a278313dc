import type { Router } from '@koa/router';
import { z } from 'zod';
import { requireUser } from '../../../application/access.ts';
import { DomainError } from '../../../domain/errors.ts';
import { USER_STATUSES } from '../../../domain/user.ts';
import type { HttpState } from '../http-state.ts';
import { UUID_PATTERN } from '../uuid.ts';
import type { RouteKit } from './route-kit.ts';

const optionalName = z.string().nullable().optional();

// Lengths and formats (e-mail, password, token) are domain rules and answer FAILED_VALIDATION from
// the handlers; this schema only refuses what is not the wire shape (INVALID_PAYLOAD).
const createUserBody = z.strictObject({
  email: z.string(),
  password: z.string(),
  role: z.string().regex(UUID_PATTERN, 'Must be a role id (UUID) or null.').nullable(),
  status: z.enum(USER_STATUSES).optional(),
  first_name: optionalName,
  last_name: optionalName,
  token: z.string().nullable().optional(),
});

const updateUserBody = createUserBody.partial();

/** What a user may change about themselves (API.md §7); every other user field stays with an admin. */
const SELF_EDITABLE = new Set(['first_name', 'last_name', 'password']);

export function registerUserRoutes(
  router: Router<HttpState>,
  { handlers, readBody, authenticated, respond }: RouteKit,
): void {
  router.get(
    '/users',
    authenticated(async (ctx, caller) => respond.send(ctx, await handlers.listUsers.execute(caller))),
  );
  router.post(
    '/users',
    authenticated(async (ctx, caller) => {
      const body = await readBody(ctx, createUserBody);
      respond.send(ctx, await handlers.createUser.execute(caller, body));
    }),
  );
  // Registered before /users/:id so that "me" is never taken for an id.
  router.get(
    '/users/me',
    authenticated(async (ctx, caller) => respond.send(ctx, await handlers.getCurrentUser.execute(caller))),
  );
  router.patch(
    '/users/me',
    authenticated(async (ctx, caller) => {
      // Authentication before the field check below, so an anonymous caller hears 401, not 403.
      requireUser(caller);
      const body = await readBody(ctx, updateUserBody);
      // A known user field the caller may not change is a permission question (403 naming the field,
      // as for item fields in API.md §5); a field that does not exist at all is a payload error (400).
      const refused = Object.keys(body).find((field) => !SELF_EDITABLE.has(field));
      if (refused) {
        throw new DomainError('FORBIDDEN', `You may not change "${refused}" of your own user.`, {
          field: refused,
        });
      }
      const { first_name, last_name, password } = body;
      respond.send(
        ctx,
        await handlers.updateCurrentUser.execute(caller, { first_name, last_name, password }),
      );
    }),
  );
  router.get(
    '/users/:id',
    authenticated(async (ctx, caller) =>
      respond.send(ctx, await handlers.getUser.execute(caller, { id: ctx.params.id! })),
    ),
  );
  router.patch(
    '/users/:id',
    authenticated(async (ctx, caller) => {
      const body = await readBody(ctx, updateUserBody);
      respond.send(ctx, await handlers.updateUser.execute(caller, { id: ctx.params.id!, changes: body }));
    }),
  );
  router.delete(
    '/users/:id',
    authenticated(async (ctx, caller) => {
      await handlers.deleteUser.execute(caller, { id: ctx.params.id! });
      respond.noContent(ctx);
    }),
  );
}
