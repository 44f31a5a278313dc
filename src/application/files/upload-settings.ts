/** `storage.maxUploadSize` and `storage.allowedTypes` (docs/api.md §15). */
export type UploadSettings = {
  /** In bytes. */
  readonly maxUploadSize: number;
  /** Media types (`image/png`) or families (`image/*`) accepted; empty accepts every type. */
  readonly allowedTypes: ReadonlyArray<string>;
};

export function isAllowedType(type: string, allowed: ReadonlyArray<string>): boolean {
  if (allowed.length === 0) return true;
  const family = `${type.split('/')[0]}/*`;
  return allowed.some((entry) => entry === type || entry === family || entry === '*/*');
}
