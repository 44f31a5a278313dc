import { ContainerModule } from 'inversify';
import { z } from 'zod';
import type { HttpRoutes } from '../adapters/http/http-routes.ts';
import type { HttpContext } from '../adapters/http/http-state.ts';
import { itemQuery } from '../adapters/http/item-query-string.ts';
import { userAnswer } from '../adapters/http/openapi/answer-schemas.ts';
import { systemQueryParameters } from '../adapters/http/openapi/system-query-parameters.ts';
import { uuidText } from '../adapters/http/uuid.ts';
import { requireAdmin, requireUser } from '../application/access.ts';
import { LastAdminGuard } from '../application/last-admin-guard.ts';
import { BootstrapHandler } from '../application/setup/bootstrap.ts';
import { selectFields } from '../application/system-queries/select-fields.ts';
import { USERS_COLLECTION } from '../application/system-queries/system-collections.ts';
import { parseSystemFields } from '../application/system-queries/system-list-query.ts';
import { CreateUserHandler } from '../application/users/create-user.ts';
import { DeleteUserHandler } from '../application/users/delete-user.ts';
import { GetCurrentUserHandler } from '../application/users/get-current-user.ts';
import { GetUserHandler } from '../application/users/get-user.ts';
import { ListUsersHandler } from '../application/users/list-users.ts';
import { QueryUsersHandler } from '../application/users/query-users.ts';
import { RevokeUserTokensHandler } from '../application/users/revoke-user-tokens.ts';
import { SetStaticTokenHandler } from '../application/users/set-static-token.ts';
import { UpdateCurrentUserHandler } from '../application/users/update-current-user.ts';
import { UpdateUserHandler } from '../application/users/update-user.ts';
import { DomainError } from '../domain/errors.ts';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '../domain/password.ts';
import type { QueryLimits } from '../domain/query/parse-item-query.ts';
import { USER_STATUSES } from '../domain/user.ts';
import { factoryBinder } from './factory-binder.ts';
import { TYPES } from './service-identifiers.ts';

const optionalName = z.string().nullable().optional();

const userId = z.uuid().describe("The user's id.");

// Lengths and formats (e-mail, password, token) are domain rules and answer FAILED_VALIDATION from
// the handlers; this schema only refuses what is not the wire shape (INVALID_PAYLOAD).
const createUserBody = z.strictObject({
  email: z.string(),
  password: z.string().describe(`${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters.`),
  role: uuidText('a role id (UUID) or null')
    .nullable()
    .describe('A role id, or null for a user with only the public permissions.'),
  status: z.enum(USER_STATUSES).optional(),
  first_name: optionalName,
  last_name: optionalName,
  token: z.string().nullable().optional(),
});

const updateUserBody = createUserBody.partial();

/** What a user may change about themselves (docs/api.md §7); every other user field stays with an admin. */
const selfUpdateBody = updateUserBody.pick({ first_name: true, last_name: true, password: true });
const SELF_EDITABLE: ReadonlySet<string> = new Set(Object.keys(selfUpdateBody.shape));

/**
 * What PATCH /users/me reads: the user members a user may not change take any value here, so that naming
 * one is refused as the permission question it is (403) before its shape is judged (docs/api.md §7).
 */
const selfUpdateRequest = selfUpdateBody.extend(
  Object.fromEntries(
    Object.keys(updateUserBody.shape)
      .filter((field) => !SELF_EDITABLE.has(field))
      .map((field) => [field, z.unknown().optional()]),
    // Typed as no member: the route refuses each of them before reading the body's members.
  ) as Record<never, z.ZodOptional<z.ZodUnknown>>,
);

/**
 * /users, the caller's own user, and the operator's work on users: the first admin (bootstrap) and
 * static tokens. The last-admin guard lives here; the roles module uses it too.
 */
export const usersModule = new ContainerModule((options) => {
  const bind = factoryBinder(options);
  bind(LastAdminGuard, (get) => new LastAdminGuard(get(TYPES.UserRepository), get(TYPES.RoleRepository)));
  bind(ListUsersHandler, (get) => new ListUsersHandler(get(TYPES.UserRepository)));
  bind(
    QueryUsersHandler,
    (get) => new QueryUsersHandler(get(TYPES.UserRepository), get(TYPES.Clock), get(TYPES.QueryLimits)),
  );
  bind(GetUserHandler, (get) => new GetUserHandler(get(TYPES.UserRepository), get(TYPES.QueryLimits)));
  bind(
    CreateUserHandler,
    (get) =>
      new CreateUserHandler(
        get(TYPES.UserRepository),
        get(TYPES.RoleRepository),
        get(TYPES.PasswordHasher),
        get(TYPES.Clock),
      ),
  );
  bind(
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
  bind(DeleteUserHandler, (get) => new DeleteUserHandler(get(TYPES.UserRepository), get(LastAdminGuard)));
  bind(
    GetCurrentUserHandler,
    (get) => new GetCurrentUserHandler(get(TYPES.UserRepository), get(TYPES.QueryLimits)),
  );
  bind(
    UpdateCurrentUserHandler,
    (get) =>
      new UpdateCurrentUserHandler(
        get(TYPES.UserRepository),
        get(TYPES.RefreshTokenRepository),
        get(TYPES.PasswordHasher),
        get(TYPES.Clock),
      ),
  );
  bind(SetStaticTokenHandler, (get) => new SetStaticTokenHandler(get(TYPES.UserRepository)));
  bind(
    RevokeUserTokensHandler,
    (get) =>
      new RevokeUserTokensHandler(
        get(TYPES.UserRepository),
        get(TYPES.RefreshTokenRepository),
        get(TYPES.Clock),
      ),
  );
  bind(
    BootstrapHandler,
    (get) =>
      new BootstrapHandler(get(TYPES.UserRepository), get(TYPES.RoleRepository), get(CreateUserHandler)),
  );

  bind<HttpRoutes>(TYPES.HttpRoutes, (get) => {
    const limits = get<QueryLimits>(TYPES.QueryLimits);
    const queryUsers = get(QueryUsersHandler);
    const getUser = get(GetUserHandler);
    const createUser = get(CreateUserHandler);
    const updateUser = get(UpdateUserHandler);
    const deleteUser = get(DeleteUserHandler);
    const getCurrentUser = get(GetCurrentUserHandler);
    const updateCurrentUser = get(UpdateCurrentUserHandler);
    return {
      register(router, { readBody, authenticated, respond }) {
        /**
         * The answer of a write shaped by `fields`, as a read of one record is (docs/api.md §7): parsed once
         * the caller's right is established and before the write, so that a bad one changes nothing.
         */
        const answerFields = (ctx: HttpContext) =>
          parseSystemFields(itemQuery(ctx), USERS_COLLECTION, limits);
        router.get(
          '/users',
          authenticated(async (ctx, caller) => {
            const { data, meta } = await queryUsers.execute(caller, { query: itemQuery(ctx) });
            respond.sendJson(ctx, JSON.stringify(data), meta);
          }),
        );
        router.post(
          '/users',
          authenticated(async (ctx, caller) => {
            const body = await readBody(ctx, createUserBody);
            requireAdmin(caller);
            const fields = answerFields(ctx);
            respond.send(ctx, selectFields(await createUser.execute(caller, body), fields));
          }),
        );
        // Registered before /users/:id so that "me" is never taken for an id.
        router.get(
          '/users/me',
          authenticated(async (ctx, caller) =>
            respond.send(ctx, await getCurrentUser.execute(caller, { query: itemQuery(ctx) })),
          ),
        );
        router.patch(
          '/users/me',
          authenticated(async (ctx, caller) => {
            // Authentication before the field check below, so an anonymous caller hears 401, not 403.
            requireUser(caller);
            const body = await readBody(ctx, selfUpdateRequest);
            // A known user field the caller may not change is a permission question (403 naming the field,
            // as for item fields in docs/api.md §5); a field that does not exist at all is a payload error (400).
            const refused = Object.keys(body).find((field) => !SELF_EDITABLE.has(field));
            if (refused) {
              throw new DomainError('FORBIDDEN', `You may not change "${refused}" of your own user.`, {
                field: refused,
              });
            }
            const fields = answerFields(ctx);
            const { first_name, last_name, password } = body;
            const me = await updateCurrentUser.execute(caller, { first_name, last_name, password });
            respond.send(ctx, selectFields(me, fields));
          }),
        );
        router.get(
          '/users/:id',
          authenticated(async (ctx, caller) =>
            respond.send(ctx, await getUser.execute(caller, { id: ctx.params.id!, query: itemQuery(ctx) })),
          ),
        );
        router.patch(
          '/users/:id',
          authenticated(async (ctx, caller) => {
            const body = await readBody(ctx, updateUserBody);
            requireAdmin(caller);
            const fields = answerFields(ctx);
            const user = await updateUser.execute(caller, { id: ctx.params.id!, changes: body });
            respond.send(ctx, selectFields(user, fields));
          }),
        );
        router.delete(
          '/users/:id',
          authenticated(async (ctx, caller) => {
            await deleteUser.execute(caller, { id: ctx.params.id! });
            respond.noContent(ctx);
          }),
        );
      },
      api: () => {
        const query = systemQueryParameters(limits);
        const user = { status: 200, description: 'The user.', body: userAnswer };
        const byId = { pathParameters: { id: userId }, tag: 'users', audience: 'admin' } as const;
        const me = { path: '/users/me', tag: 'users', audience: 'user' } as const;
        return {
          tags: [{ name: 'users', description: 'Your own user, and, for admins, every user.' }],
          schemas: { User: userAnswer },
          operations: [
            {
              method: 'get',
              path: '/users',
              operationId: 'listUsers',
              summary: 'List users',
              tag: 'users',
              audience: 'admin',
              query: query.list,
              answers: [
                {
                  status: 200,
                  description: 'The users the query selects, every field unless `fields` narrows them.',
                  body: userAnswer,
                  form: 'list',
                },
              ],
              errors: [400, 401, 403],
            },
            {
              method: 'post',
              path: '/users',
              operationId: 'createUser',
              query: query.single,
              summary: 'Create a user',
              tag: 'users',
              audience: 'admin',
              body: createUserBody,
              answers: [{ ...user, description: 'The created user.' }],
              errors: [400, 401, 403, 409, 413, 415],
            },
            {
              ...me,
              method: 'get',
              operationId: 'readMe',
              summary: 'The user the token belongs to',
              query: query.single,
              answers: [{ ...user, description: 'The current user.' }],
              errors: [400, 401],
            },
            {
              ...me,
              method: 'patch',
              operationId: 'updateMe',
              query: query.single,
              summary: 'Change your own names or password',
              body: selfUpdateBody,
              answers: [{ ...user, description: 'The current user.' }],
              errors: [400, 401, 403, 413, 415],
            },
            {
              ...byId,
              method: 'get',
              path: '/users/:id',
              operationId: 'readUser',
              summary: 'Read a user',
              query: query.single,
              answers: [user],
              errors: [400, 401, 403, 404],
            },
            {
              ...byId,
              method: 'patch',
              path: '/users/:id',
              operationId: 'updateUser',
              query: query.single,
              summary: 'Change a user',
              description: 'A new password or a suspension ends all the sessions of the user.',
              body: updateUserBody,
              answers: [{ ...user, description: 'The changed user.' }],
              errors: [400, 401, 403, 404, 409, 413, 415],
            },
            {
              ...byId,
              method: 'delete',
              path: '/users/:id',
              operationId: 'deleteUser',
              summary: 'Delete a user',
              description:
                'Ends all the sessions of the user. The last active admin stays (400 `LAST_ADMIN`).',
              answers: [{ status: 204, description: 'Deleted.' }],
              errors: [400, 401, 403, 404],
            },
          ],
        };
      },
    };
  });
});
