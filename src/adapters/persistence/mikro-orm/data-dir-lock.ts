import { mkdir, open, readFile, unlink } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { unusableDataDirReason } from '../../unusable-data-dir.ts';

const LOCK_FILE = 'datagate.lock';

/**
 * Paths this process holds. A lock file naming our own pid is ours only if it is listed here; otherwise it was
 * left by an earlier process that happened to have the same pid (pid 1 after every container restart).
 */
const heldByThisProcess = new Set<string>();

/**
 * Exclusive ownership of a data directory, because PGlite does not lock its own: two processes on one
 * directory would corrupt it. The lock is `<dataDir>/datagate.lock`, created with O_EXCL and holding the
 * owner's pid; a lock whose owner is gone (crash, kill -9) is taken over.
 */
export class DataDirLock {
  private released = false;

  private constructor(private readonly file: string) {}

  static async acquire(dataDir: string): Promise<DataDirLock> {
    await mkdir(dataDir, { recursive: true }).catch((error: unknown) => {
      const reason = unusableDataDirReason(dataDir, error);
      throw reason === undefined ? error : new Error(reason);
    });
    const file = resolve(join(dataDir, LOCK_FILE));
    // Two rounds: the second one follows the removal of a stale lock.
    for (let round = 0; round < 2; round++) {
      if (await createExclusively(file)) {
        heldByThisProcess.add(file);
        return new DataDirLock(file);
      }
      const owner = await readOwner(file);
      if (owner === 'vanished') continue;
      if (owner === 'unreadable') {
        throw new Error(
          `data directory ${dataDir} has an unreadable lock file ${file}; remove it if no datagate process is running`,
        );
      }
      if (heldByThisProcess.has(file)) {
        throw new Error(`data directory ${dataDir} is already open in this process (pid ${owner})`);
      }
      if (owner !== process.pid && isAlive(owner)) {
        throw new Error(
          `data directory ${dataDir} is in use by another datagate process (pid ${owner}); the embedded database is held by one process at a time: stop that one first`,
        );
      }
      await unlink(file).catch(ignoreMissing);
    }
    throw new Error(`data directory ${dataDir} could not be locked: another process keeps taking ${file}`);
  }

  async release(): Promise<void> {
    if (this.released) return;
    this.released = true;
    heldByThisProcess.delete(this.file);
    // Never remove a lock that someone else has taken over meanwhile.
    if ((await readOwner(this.file)) === process.pid) await unlink(this.file).catch(ignoreMissing);
  }
}

async function createExclusively(file: string): Promise<boolean> {
  try {
    const handle = await open(file, 'wx');
    try {
      await handle.writeFile(`${process.pid}\n`);
    } finally {
      await handle.close();
    }
    return true;
  } catch (error) {
    if (isErrno(error, 'EEXIST')) return false;
    throw error;
  }
}

async function readOwner(file: string): Promise<number | 'vanished' | 'unreadable'> {
  try {
    const pid = Number.parseInt(await readFile(file, 'utf8'), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : 'unreadable';
  } catch (error) {
    if (isErrno(error, 'ENOENT')) return 'vanished';
    throw error;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to another user.
    return isErrno(error, 'EPERM');
  }
}

function isErrno(error: unknown, code: string): boolean {
  return error instanceof Error && (error as NodeJS.ErrnoException).code === code;
}

function ignoreMissing(error: unknown) {
  if (!isErrno(error, 'ENOENT')) throw error;
}
