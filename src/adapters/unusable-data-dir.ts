/** Why a data directory cannot be made or written, in an operator's words rather than Node's `mkdir` error. */
const UNUSABLE: Readonly<Record<string, string>> = {
  EEXIST: 'a file of that name is in the way',
  ENOTDIR: 'a file is in the way on its path',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EROFS: 'the file system is read-only',
};

/** `<dir> cannot be used as the data directory: <why> (<code>)`, or undefined for an error of another kind. */
export function unusableDataDirReason(dataDir: string, error: unknown): string | undefined {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const reason = code === undefined ? undefined : UNUSABLE[code];
  return reason === undefined
    ? undefined
    : `${dataDir} cannot be used as the data directory: ${reason} (${code})`;
}
