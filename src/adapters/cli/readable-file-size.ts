import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';

/** Why a file cannot be read, in an operator's words rather than Node's `open` error. */
const UNREADABLE: Readonly<Record<string, string>> = {
  ENOENT: 'no such file',
  ENOTDIR: 'a part of its path is not a directory',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  ELOOP: 'too many symbolic links',
  ENAMETOOLONG: 'the name is too long',
};

/**
 * The size of a file a command is about to read, checked before the database is opened: a path that is
 * missing, a directory or not readable is refused in one line naming it. A pipe (`/dev/stdin`, a shell's
 * `<(…)`) is read as a file, its size 0.
 */
export async function readableFileSize(file: string): Promise<number> {
  try {
    const stats = await stat(file);
    if (stats.isDirectory()) throw new Error(`${file} is a directory, not a file`);
    await access(file, constants.R_OK);
    return stats.size;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason = code === undefined ? undefined : UNREADABLE[code];
    if (reason === undefined) throw error;
    throw new Error(`${file} cannot be read: ${reason} (${code})`);
  }
}
