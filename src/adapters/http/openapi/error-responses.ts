import { z } from 'zod';
import type { DocumentSchemas } from './document-schemas.ts';
import type { Reference, Response } from './openapi-types.ts';

/** docs/api.md §2: every error, in every profile. */
export const errorBody = z
  .object({
    errors: z
      .tuple([
        z.object({
          message: z.string(),
          extensions: z
            .object({
              code: z.string().meta({ examples: ['FORBIDDEN'] }),
              field: z.string().describe('The field the error is about.').optional(),
              reason: z.string().optional(),
              retryAfter: z
                .int()
                .describe('Seconds to wait before trying again (429 and 503 answers).')
                .optional(),
            })
            .loose(),
        }),
      ])
      .describe('Always one error.'),
  })
  .describe('An error answer (docs/api.md §2).');

const seconds = z.int().min(0);

/** The error answers operations refer to, by status: [component name, description, headers]. */
const ERRORS = {
  400: [
    'BadRequest',
    'INVALID_PAYLOAD, INVALID_QUERY or FAILED_VALIDATION; `extensions.field` names the field.',
  ],
  401: [
    'Unauthorized',
    'UNAUTHENTICATED (no token, and the public role may not do this), INVALID_TOKEN, TOKEN_EXPIRED…',
    { 'WWW-Authenticate': { description: 'The bearer challenge.', schema: z.string() } },
  ],
  403: ['Forbidden', 'FORBIDDEN: the caller may not do this (or name this field).'],
  404: ['NotFound', 'NOT_FOUND: no such item, or one the caller may not read.'],
  409: ['Conflict', 'RECORD_NOT_UNIQUE: `extensions.field` names the unique field.'],
  413: [
    'PayloadTooLarge',
    'REQUEST_TOO_LARGE: the body is over the limit; CONTENT_TOO_LARGE: an uploaded file is over `storage.maxUploadSize`.',
  ],
  415: [
    'UnsupportedMediaType',
    'UNSUPPORTED_MEDIA_TYPE: the body is not of a type this operation reads, or an uploaded file of a type not accepted.',
  ],
  412: [
    'PreconditionFailed',
    'PRECONDITION_FAILED: `If-Match` names another ETag, or the file changed after `If-Unmodified-Since`.',
  ],
  416: [
    'RangeNotSatisfiable',
    'RANGE_NOT_SATISFIABLE: the byte range lies outside the file.',
    { 'Content-Range': { description: '`bytes */<size>`.', schema: z.string() } },
  ],
  429: [
    'TooManyRequests',
    'TOO_MANY_REQUESTS: too many failed logins, or this caller has its share of requests in flight.',
    { 'Retry-After': { description: 'Seconds to wait.', schema: seconds } },
  ],
} as const satisfies Record<
  number,
  readonly [string, string, Record<string, { description: string; schema: z.ZodType }>?]
>;

export type ErrorStatus = keyof typeof ERRORS;

const OTHER =
  'Any other error: 422 QUERY_TOO_EXPENSIVE (a statement ran past its timeout: ask for less), 429 TOO_MANY_REQUESTS (this caller has its share of requests in flight), 503 SERVICE_UNAVAILABLE when the database is down or SERVICE_BUSY when every connection stayed busy, 500 INTERNAL.';

/**
 * The document's error answers: `components.responses` for the statuses its operations use (an unused
 * one would be an unused component), and each operation's references to them, `default` for the rest.
 */
export class ErrorResponses {
  private readonly used = new Set<ErrorStatus>();

  constructor(private readonly schemas: DocumentSchemas) {
    schemas.name('Error', errorBody);
  }

  of(statuses: ReadonlyArray<ErrorStatus>): Record<string, Reference> {
    const refs: Record<string, Reference> = {};
    for (const status of statuses) {
      this.used.add(status);
      refs[status] = { $ref: `#/components/responses/${ERRORS[status][0]}` };
    }
    refs.default = { $ref: '#/components/responses/Error' };
    return refs;
  }

  components(): Record<string, Response> {
    const responses: Record<string, Response> = {};
    const statuses = [...this.used].sort((a, b) => a - b);
    for (const status of statuses) {
      const [name, description, headers] = ERRORS[status] as readonly [
        string,
        string,
        Record<string, { description: string; schema: z.ZodType }>?,
      ];
      responses[name] = this.response(description, headers);
    }
    responses.Error = this.response(OTHER);
    return responses;
  }

  private response(
    description: string,
    headers?: Record<string, { description: string; schema: z.ZodType }>,
  ): Response {
    return {
      description,
      ...(headers ? { headers: this.schemas.headers(headers) } : {}),
      content: { 'application/json': { schema: this.schemas.write(errorBody, 'output') } },
    };
  }
}
