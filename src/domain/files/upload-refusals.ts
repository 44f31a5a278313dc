import { DomainError } from '../errors.ts';

/** An upload's bytes went past `storage.maxUploadSize` (docs/api.md §15); nothing of it is kept. */
export const contentTooLarge = (maxBytes: number) =>
  new DomainError('CONTENT_TOO_LARGE', `A file may hold at most ${maxBytes} bytes.`, { maxBytes });

/** An upload whose bytes are of a type outside `storage.allowedTypes`; nothing of it is kept. */
export const typeNotAllowed = (type: string) =>
  new DomainError('UNSUPPORTED_MEDIA_TYPE', `Files of type "${type}" are not accepted here.`, { type });

/**
 * Another request held the resumable upload for longer than `storage.tus.lockTimeout` (docs/api.md §15):
 * nothing of this request was written, and the same request may be sent again.
 */
export const uploadLocked = () =>
  new DomainError('LOCKED', 'Another request is writing to this upload; send yours again once it has ended.');

/**
 * The user already has `storage.tus.maxUnfinished` resumable uploads begun and not finished (docs/api.md
 * §15): nothing of this one was stored. A place frees when the caller finishes or terminates one, or, by
 * itself, when the oldest expires: `Retry-After` says when that is.
 */
export const tooManyUploads = (max: number, retryAfterSeconds: number) =>
  new DomainError(
    'TOO_MANY_REQUESTS',
    `You have ${max} unfinished uploads, as many as you may: finish or terminate one, or wait for the oldest to expire.`,
    { reason: 'TOO_MANY_UPLOADS', retryAfter: Math.max(1, Math.ceil(retryAfterSeconds)) },
  );
