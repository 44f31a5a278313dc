/**
 * The keys every file store accepts (src/application/ports/file-storage.ts): segments of letters, digits,
 * `_`, `-` and `.` joined by `/`, none starting with a dot. A conservative set, so that a key is the same
 * path on every disk and the same object name in S3 without escaping, and so that `..`, an absolute path
 * or a hidden temporary file can never be named. Keys are made by the server, never taken from a
 * request, so a bad one is a bug: it throws.
 */
const SEGMENT = '[A-Za-z0-9_-][A-Za-z0-9._-]*';
const KEY = new RegExp(`^${SEGMENT}(?:/${SEGMENT})*$`);
/** A prefix is a key cut anywhere: whole segments, each followed by `/`, then maybe part of the next. */
const PREFIX = new RegExp(`^(?:${SEGMENT}/)*(?:${SEGMENT})?$`);

/** S3's limit, in bytes; the set above is ASCII, so characters. */
export const MAX_STORAGE_KEY_LENGTH = 1024;

export function assertStorageKey(key: string): void {
  if (key.length > MAX_STORAGE_KEY_LENGTH || !KEY.test(key)) {
    throw new TypeError(`Invalid storage key ${JSON.stringify(key)}`);
  }
}

export function assertStoragePrefix(prefix: string): void {
  if (prefix.length > MAX_STORAGE_KEY_LENGTH || !PREFIX.test(prefix)) {
    throw new TypeError(`Invalid storage key prefix ${JSON.stringify(prefix)}`);
  }
}
