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
