/** Machine codes of the wire contract (docs/api.md §2); the HTTP adapter maps each to its status. */
export type ErrorCode =
  | 'INVALID_PAYLOAD'
  | 'INVALID_QUERY'
  | 'FAILED_VALIDATION'
  | 'INVALID_CREDENTIALS'
  | 'INVALID_TOKEN'
  | 'TOKEN_EXPIRED'
  | 'UNAUTHENTICATED'
  | 'USER_SUSPENDED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'COLLECTION_NOT_FOUND'
  | 'RECORD_NOT_UNIQUE'
  | 'TOO_MANY_REQUESTS'
  | 'RESPONSE_TOO_LARGE'
  | 'QUERY_TOO_EXPENSIVE'
  | 'SERVICE_UNAVAILABLE'
  | 'SERVICE_BUSY'
  | 'CONTENT_TOO_LARGE'
  | 'LOCKED'
  | 'UNSUPPORTED_MEDIA_TYPE';

export type ErrorExtensions = {
  field?: string;
  reason?: string;
  /** Whole seconds until a throttled caller may try again; the HTTP adapter also sends it as `Retry-After`. */
  retryAfter?: number;
  /** RESPONSE_TOO_LARGE: the response byte budget, and the size of the answer that was refused. */
  maxBytes?: number;
  bytes?: number;
  /** An import's refusal: the 1-based data row it is about (docs/api.md §13). */
  row?: number;
  /** UNSUPPORTED_MEDIA_TYPE of an upload: the type its bytes were found to have (docs/api.md §15). */
  type?: string;
};

/** A refusal the caller may see: its message must never carry secrets, SQL or stack traces. */
export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly extensions: ErrorExtensions = {},
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

export const invalidPayload = (message: string, field?: string) =>
  new DomainError('INVALID_PAYLOAD', message, field ? { field } : {});

export const failedValidation = (field: string, message: string) =>
  new DomainError('FAILED_VALIDATION', message, { field });

export const invalidCredentials = () => new DomainError('INVALID_CREDENTIALS', 'Invalid user credentials.');

export const invalidToken = () => new DomainError('INVALID_TOKEN', 'Invalid token.');

export const tokenExpired = () => new DomainError('TOKEN_EXPIRED', 'Token expired.');

export const unauthenticated = () =>
  new DomainError('UNAUTHENTICATED', 'Authentication is required to do this.');

export const userSuspended = () => new DomainError('USER_SUSPENDED', 'User is suspended.');

export const forbidden = (field?: string) =>
  new DomainError('FORBIDDEN', "You don't have permission to do this.", field ? { field } : {});

/** A view is a collection to read: 403 rather than 405, as the refusal is about the collection, not the route. */
export const readOnlyCollection = (collection: string) =>
  new DomainError(
    'FORBIDDEN',
    `Collection "${collection}" is a database view: it is read-only, its items and fields cannot be changed.`,
    { reason: 'READ_ONLY_COLLECTION' },
  );

/**
 * A role preview's token (docs/api.md §6) reads and does nothing else: a write, or anything that needs the
 * caller's own user, is refused whatever the previewed role may do.
 */
export const previewRefused = () =>
  new DomainError('FORBIDDEN', 'A role preview may only read: it changes nothing and has no user.', {
    reason: 'PREVIEW',
  });

export const notFound = (what = 'Item') => new DomainError('NOT_FOUND', `${what} not found.`);

export const recordNotUnique = (field: string) =>
  new DomainError('RECORD_NOT_UNIQUE', `Value of "${field}" has to be unique.`, { field });

/** A new collection's name that a collection already has. */
export const collectionExists = (name: string) =>
  new DomainError('RECORD_NOT_UNIQUE', `Collection "${name}" exists.`, { field: 'collection' });

/** `retryAfter` as `Retry-After` carries it: whole seconds, rounded up, never 0 (which would mean now). */
const wholeSeconds = (seconds: number) => Math.max(1, Math.ceil(seconds));

/**
 * Failed logins over a budget (docs/api.md §3). The message says the wait `Retry-After` carries, in words,
 * made from that value alone: it tells no more than the header does.
 */
export const tooManyRequests = (retryAfterSeconds: number) => {
  const retryAfter = wholeSeconds(retryAfterSeconds);
  return new DomainError('TOO_MANY_REQUESTS', `Too many attempts. Try again in ${waitInWords(retryAfter)}.`, {
    retryAfter,
  });
};

/**
 * A wait of whole seconds as a person reads it, never shorter than it is: seconds under a minute, then
 * whole minutes (rounded up) under two hours, then whole hours (rounded up).
 */
export function waitInWords(seconds: number): string {
  const counted = (count: number, unit: string) => `${count} ${unit}${count === 1 ? '' : 's'}`;
  if (seconds < 60) return counted(seconds, 'second');
  if (seconds < 2 * 3600) return counted(Math.ceil(seconds / 60), 'minute');
  return counted(Math.ceil(seconds / 3600), 'hour');
}

/**
 * The answer's JSON text would exceed the response byte budget (`query.responseMaxBytes`). The caller can
 * only see its own readable data's size here, and can ask again for fewer rows (`limit`) or fields.
 */
export const responseTooLarge = (bytes: number, maxBytes: number) =>
  new DomainError(
    'RESPONSE_TOO_LARGE',
    `The answer would be ${bytes} bytes, over the limit of ${maxBytes}: ask for fewer items or fields.`,
    { maxBytes, bytes },
  );

/**
 * This caller already has as many requests doing database work as it may; the others get their share
 * (docs/api.md §4a).
 */
export const tooManyConcurrentRequests = (retryAfterSeconds: number) =>
  new DomainError('TOO_MANY_REQUESTS', 'Too many requests at once from this caller. Try again shortly.', {
    retryAfter: wholeSeconds(retryAfterSeconds),
  });

/**
 * A statement of this request ran past its kind's `statement_timeout` and was cancelled. A 4xx, not a
 * 503: the same request would most likely be cut again, so the caller should ask for less, not retry.
 */
export const queryTooExpensive = () =>
  new DomainError(
    'QUERY_TOO_EXPENSIVE',
    'The request took longer than the server allows. Ask for less: fewer rows or fields, a narrower filter or search, or a sort on fewer fields.',
  );

/**
 * Every database connection stayed busy beyond the bounded wait: the database is fine, this instance is
 * saturated. Its own code, so that a client or an operator never mistakes it for a lost database.
 */
export const serviceBusy = (retryAfterSeconds: number) =>
  new DomainError('SERVICE_BUSY', 'The service is busy. Try again shortly.', {
    retryAfter: wholeSeconds(retryAfterSeconds),
  });

/**
 * Seconds a client should wait before asking again when the database cannot be used: long enough not to
 * hammer a server that is coming back, short enough that clients resume soon after it does.
 */
export const UNAVAILABLE_RETRY_AFTER_S = 5;

/** The database does not answer; the message names no host, port or driver detail. */
export const serviceUnavailable = () =>
  new DomainError('SERVICE_UNAVAILABLE', 'The service is unavailable. Try again shortly.', {
    retryAfter: UNAVAILABLE_RETRY_AFTER_S,
  });

/**
 * The database answers but holds none (or not all) of the server's own tables: it was emptied or
 * re-created. The server does not recreate them by itself (docs/decisions/0014-database-lost-and-found.md):
 * an operator must see the loss and run `datagate migrate` (or `datagate bootstrap`).
 */
export const migrationNeeded = () =>
  new DomainError(
    'SERVICE_UNAVAILABLE',
    "The database has lost the server's tables: an operator must run `datagate migrate`.",
    { reason: 'MIGRATION_NEEDED', retryAfter: UNAVAILABLE_RETRY_AFTER_S },
  );

/**
 * An import met columns other than those it was checked against (changed by hand, or by another instance):
 * it cannot run again by itself, its file having been read as it came; sent again, it meets them as they are.
 */
export const schemaChangedDuringImport = () =>
  new DomainError(
    'SERVICE_UNAVAILABLE',
    "The collection's columns changed while the import ran; what it had not committed was not written. Send it again.",
    { reason: 'SCHEMA_CHANGED', retryAfter: 1 },
  );

/** Refused so the API cannot lock every administrator out (only the CLI could then recover). */
export const lastAdmin = () =>
  new DomainError('INVALID_PAYLOAD', 'This would leave no active user with admin access.', {
    reason: 'LAST_ADMIN',
  });
