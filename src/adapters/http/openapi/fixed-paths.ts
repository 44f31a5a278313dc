import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '../../../domain/password.ts';
import { USER_STATUSES } from '../../../domain/user.ts';
import { errorsOf } from './error-responses.ts';
import type { JsonSchema, PathItem } from './openapi-types.ts';
import type { ProfileShapes } from './profile-shapes.ts';

export type FixedApi = { paths: Record<string, PathItem>; schemas: Record<string, JsonSchema> };

const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });
const body = (schema: JsonSchema) => ({ required: true, content: { 'application/json': { schema } } });
const NONE: Array<Record<string, string[]>> = [];

const refreshBody: JsonSchema = {
  type: 'object',
  required: ['refresh_token'],
  properties: { refresh_token: { type: 'string' }, mode: { const: 'json' } },
};

/** What every caller may call, whatever their permissions: logging in and out, their own user, health. */
export function fixedApi(shapes: ProfileShapes): FixedApi {
  const schemas: Record<string, JsonSchema> = {
    TokenPair: {
      type: 'object',
      required: ['access_token', 'expires', 'refresh_token'],
      properties: {
        access_token: { type: 'string', description: 'Send it as `Authorization: Bearer <token>`.' },
        expires: { type: 'integer', description: shapes.expires },
        refresh_token: { type: 'string', description: 'Spent by /auth/refresh, which answers a new pair.' },
      },
    },
    User: {
      type: 'object',
      required: ['id', 'email', 'first_name', 'last_name', 'role', 'status', 'token'],
      properties: {
        id: { type: 'string', format: 'uuid' },
        email: { type: 'string' },
        first_name: { type: ['string', 'null'] },
        last_name: { type: ['string', 'null'] },
        role: { type: ['string', 'null'], format: 'uuid' },
        status: { type: 'string', enum: USER_STATUSES },
        token: { type: ['string', 'null'], description: 'Masked when a static token is set.' },
      },
    },
    Health: {
      type: 'object',
      required: ['status', 'checks'],
      properties: { status: { type: 'string', enum: ['ok', 'error'] }, checks: { type: 'object' } },
    },
  };
  const paths: Record<string, PathItem> = {
    '/auth/login': {
      post: {
        operationId: 'login',
        summary: 'Log in',
        description: 'Answers a token pair; use its `access_token` with "Authorize".',
        tags: ['auth'],
        security: NONE,
        requestBody: body({
          type: 'object',
          required: ['email', 'password'],
          properties: { email: { type: 'string' }, password: { type: 'string' }, mode: { const: 'json' } },
        }),
        responses: { 200: shapes.ok('A token pair.', ref('TokenPair')), ...errorsOf(400, 401, 429) },
      },
    },
    '/auth/refresh': {
      post: {
        operationId: 'refresh',
        summary: 'Trade a refresh token for a new pair',
        tags: ['auth'],
        security: NONE,
        requestBody: body(refreshBody),
        responses: { 200: shapes.ok('A new token pair.', ref('TokenPair')), ...errorsOf(400, 401) },
      },
    },
    '/auth/logout': {
      post: {
        operationId: 'logout',
        summary: 'End the session of a refresh token',
        tags: ['auth'],
        security: NONE,
        requestBody: body(refreshBody),
        responses: { 204: { description: 'Logged out.' }, ...errorsOf(400, 401) },
      },
    },
    '/users/me': {
      get: {
        operationId: 'readMe',
        summary: 'The user the token belongs to',
        tags: ['users'],
        responses: { 200: shapes.ok('The current user.', ref('User')), ...errorsOf(401) },
      },
      patch: {
        operationId: 'updateMe',
        summary: 'Change your own names or password',
        tags: ['users'],
        requestBody: body({
          type: 'object',
          additionalProperties: false,
          properties: {
            first_name: { type: ['string', 'null'] },
            last_name: { type: ['string', 'null'] },
            password: { type: 'string', minLength: PASSWORD_MIN_LENGTH, maxLength: PASSWORD_MAX_LENGTH },
          },
        }),
        responses: { 200: shapes.ok('The current user.', ref('User')), ...errorsOf(400, 401, 403) },
      },
    },
    '/server/health': {
      get: {
        operationId: 'health',
        summary: 'Whether the server can serve',
        tags: ['server'],
        security: NONE,
        responses: {
          200: shapes.ok('Healthy.', ref('Health')),
          // Errors are never enveloped, even in the directus profile.
          503: {
            description: 'Not healthy, with the reason.',
            content: { 'application/json': { schema: ref('Health') } },
          },
        },
      },
    },
  };
  return { paths, schemas };
}
