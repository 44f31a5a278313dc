import { DomainError, type ErrorCode } from '../../domain/errors.ts';
import { type HttpOnlyCode, HttpProblem } from './http-problem.ts';

type WireCode = ErrorCode | HttpOnlyCode | 'INTERNAL';

/** docs/api.md §2: the one place where a machine code becomes an HTTP status. */
const STATUS: Record<WireCode, number> = {
  INVALID_PAYLOAD: 400,
  INVALID_QUERY: 400,
  RESPONSE_TOO_LARGE: 400,
  FAILED_VALIDATION: 400,
  INVALID_CREDENTIALS: 401,
  INVALID_TOKEN: 401,
  TOKEN_EXPIRED: 401,
  UNAUTHENTICATED: 401,
  USER_SUSPENDED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  COLLECTION_NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  RECORD_NOT_UNIQUE: 409,
  QUERY_TOO_EXPENSIVE: 422,
  TOO_MANY_REQUESTS: 429,
  REQUEST_TOO_LARGE: 413,
  CONTENT_TOO_LARGE: 413,
  URI_TOO_LONG: 414,
  UNSUPPORTED_MEDIA_TYPE: 415,
  PRECONDITION_FAILED: 412,
  RANGE_NOT_SATISFIABLE: 416,
  LOCKED: 423,
  INTERNAL: 500,
  SERVICE_UNAVAILABLE: 503,
  SERVICE_BUSY: 503,
};

export type ErrorBody = {
  errors: [{ message: string; extensions: { code: WireCode } & Record<string, unknown> }];
};

export type ErrorResponse = {
  status: number;
  headers: Record<string, string>;
  body: ErrorBody;
  /** True when the error was not a refusal we meant to give: it must be logged with its stack. */
  unexpected: boolean;
};

/**
 * Turns anything thrown while serving a request into the contract's error body. Only `DomainError`
 * and `HttpProblem` messages are shown; anything else may carry SQL, paths or secrets, so the caller
 * gets the request id (to quote to an operator) and nothing more.
 */
export function errorResponse(error: unknown, requestId: string): ErrorResponse {
  if (error instanceof DomainError) {
    const { retryAfter } = error.extensions;
    return known(
      error.code,
      error.message,
      { ...error.extensions },
      retryAfter === undefined ? {} : { 'Retry-After': String(retryAfter) },
    );
  }
  if (error instanceof HttpProblem) {
    return known(error.code, error.message, {}, { ...error.headers });
  }
  return {
    status: STATUS.INTERNAL,
    headers: {},
    body: {
      errors: [{ message: `Internal error (request id ${requestId}).`, extensions: { code: 'INTERNAL' } }],
    },
    unexpected: true,
  };
}

function known(
  code: WireCode,
  message: string,
  extensions: Record<string, unknown>,
  headers: Record<string, string>,
): ErrorResponse {
  const status = STATUS[code];
  if (status === 401) headers['WWW-Authenticate'] = challenge(code);
  return {
    status,
    headers,
    body: { errors: [{ message, extensions: { ...extensions, code } }] },
    unexpected: false,
  };
}

/** RFC 6750 §3: `invalid_token` tells a client that fetching a new token (refresh) may help. */
function challenge(code: WireCode): string {
  return code === 'INVALID_TOKEN' || code === 'TOKEN_EXPIRED' ? 'Bearer error="invalid_token"' : 'Bearer';
}
