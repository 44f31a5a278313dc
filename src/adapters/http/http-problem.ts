/** Codes that only the HTTP layer produces; the rest of docs/api.md §2 comes from `DomainError`. */
export type HttpOnlyCode =
  | 'METHOD_NOT_ALLOWED'
  | 'REQUEST_TOO_LARGE'
  | 'URI_TOO_LONG'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'PRECONDITION_FAILED'
  | 'RANGE_NOT_SATISFIABLE';

/** A refusal decided by the HTTP adapter itself (routing, body reading), before any handler runs. */
export class HttpProblem extends Error {
  constructor(
    readonly code: HttpOnlyCode,
    message: string,
    /** Headers the answer must carry, e.g. `Allow` on a 405. */
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
    this.name = 'HttpProblem';
  }
}

export const methodNotAllowed = (method: string, allow: string) =>
  new HttpProblem('METHOD_NOT_ALLOWED', `Method ${method} is not allowed here.`, { Allow: allow });

export const requestTooLarge = () => new HttpProblem('REQUEST_TOO_LARGE', 'Request body is too large.');

/** docs/api.md §4a: the query string has a cap no caller can lift. */
export const uriTooLong = () => new HttpProblem('URI_TOO_LONG', 'The query string is too long.');

export const unsupportedMediaType = (
  message = 'Request body must be JSON (Content-Type: application/json).',
) => new HttpProblem('UNSUPPORTED_MEDIA_TYPE', message);
