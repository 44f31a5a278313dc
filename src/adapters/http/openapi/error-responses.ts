import type { JsonSchema, Reference, Response } from './openapi-types.ts';

/** docs/api.md §2: every error, in every profile. */
export const ERROR_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['errors'],
  properties: {
    errors: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        required: ['message', 'extensions'],
        properties: {
          message: { type: 'string' },
          extensions: {
            type: 'object',
            required: ['code'],
            properties: {
              code: { type: 'string', examples: ['FORBIDDEN'] },
              field: { type: 'string', description: 'The field the error is about.' },
              reason: { type: 'string' },
              retryAfter: {
                type: 'integer',
                description: 'Seconds to wait before trying again (429 and 503 answers).',
              },
            },
          },
        },
      },
    },
  },
};

const errorBody = { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } };

const error = (description: string, headers?: Response['headers']): Response => ({
  description,
  ...(headers ? { headers } : {}),
  content: errorBody,
});

/** The error answers operations refer to, by status. */
const ERRORS = {
  400: [
    'BadRequest',
    error('INVALID_PAYLOAD, INVALID_QUERY or FAILED_VALIDATION; `extensions.field` names the field.'),
  ],
  401: [
    'Unauthorized',
    error('UNAUTHENTICATED (no token, and the public role may not do this), INVALID_TOKEN, TOKEN_EXPIRED…', {
      'WWW-Authenticate': { schema: { type: 'string' } },
    }),
  ],
  403: ['Forbidden', error('FORBIDDEN: the caller may not do this (or name this field).')],
  404: ['NotFound', error('NOT_FOUND: no such item, or one the caller may not read.')],
  409: ['Conflict', error('RECORD_NOT_UNIQUE: `extensions.field` names the unique field.')],
  413: ['PayloadTooLarge', error('REQUEST_TOO_LARGE: the body is over the limit.')],
  415: ['UnsupportedMediaType', error('UNSUPPORTED_MEDIA_TYPE: the body is not JSON.')],
  429: [
    'TooManyRequests',
    error('TOO_MANY_REQUESTS: too many failed logins, or this caller has its share of requests in flight.', {
      'Retry-After': { description: 'Seconds to wait.', schema: { type: 'integer' } },
    }),
  ],
} as const satisfies Record<number, readonly [string, Response]>;

export type ErrorStatus = keyof typeof ERRORS;

const OTHER: Response = error(
  'Any other error: 422 QUERY_TOO_EXPENSIVE (a statement ran past its timeout: ask for less), 429 TOO_MANY_REQUESTS (this caller has its share of requests in flight), 503 SERVICE_UNAVAILABLE when the database is down or SERVICE_BUSY when every connection stayed busy, 500 INTERNAL.',
);

/** components.responses: one entry per error answer. */
export function errorResponses(): Record<string, Response> {
  return { ...Object.fromEntries(Object.values(ERRORS)), Error: OTHER };
}

/** An operation's error answers: the given statuses, and `default` for the rest. */
export function errorsOf(...statuses: ErrorStatus[]): Record<string, Reference> {
  const refs: Record<string, Reference> = {};
  for (const status of statuses) refs[status] = { $ref: `#/components/responses/${ERRORS[status][0]}` };
  refs.default = { $ref: '#/components/responses/Error' };
  return refs;
}
