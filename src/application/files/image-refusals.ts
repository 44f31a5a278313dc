import { DomainError } from '../../domain/errors.ts';
import { invalidQuery } from '../../domain/query/invalid-query.ts';

/**
 * The asked-for file cannot be transformed: not an image, a type no variant is made of (SVG: user SVG is
 * never rasterized), or bytes that do not decode (a truncated or corrupt image). Served without
 * transform parameters, the original is still there.
 */
export const unsupportedImage = () =>
  invalidQuery('This file is not an image that can be transformed; ask for it without transforms.', {
    reason: 'UNSUPPORTED_IMAGE',
  });

/**
 * The original holds more pixels than `storage.transforms.maxPixels` (a decompression bomb declares
 * billions in a few bytes: refused from its header, never decoded), or the variant would be wider or
 * taller than `storage.transforms.maxDimension` (`field` names the parameter to lower, when there is one).
 */
export const imageTooLarge = (message: string, field?: 'width' | 'height') =>
  invalidQuery(message, { reason: 'IMAGE_TOO_LARGE', ...(field && { field }) });

/**
 * Every transform slot is busy and every waiting place taken (`storage.transforms.concurrency` and
 * `.queue`): the instance is saturated with image work, the database is fine.
 */
export const transformsBusy = (retryAfterSeconds: number) =>
  new DomainError('SERVICE_UNAVAILABLE', 'Too many image transforms at once. Try again shortly.', {
    reason: 'TRANSFORMS_BUSY',
    retryAfter: Math.max(1, Math.ceil(retryAfterSeconds)),
  });
