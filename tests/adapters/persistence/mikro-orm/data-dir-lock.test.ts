import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DataDirLock } from '../../../../src/adapters/persistence/mikro-orm/data-dir-lock.ts';

/** Far above Linux's pid_max (4194304): no process can have it. */
const DEAD_PID = 2_000_000_000;

const test = suite<{ dir: string; lockFile: string }>('DataDirLock');
test.before.each(async (context) => {
  context.dir = await mkdtemp(join(tmpdir(), 'datagate-lock-'));
  context.lockFile = join(context.dir, 'datagate.lock');
});
test.after.each(async ({ dir }) => {
  await rm(dir, { recursive: true, force: true });
});

test('the lock file holds the owner pid until release', async ({ dir, lockFile }) => {
  const lock = await DataDirLock.acquire(dir);
  assert.is((await readFile(lockFile, 'utf8')).trim(), String(process.pid));
  await lock.release();
  assert.is(existsSync(lockFile), false);
});

test('a missing data directory is created', async ({ dir }) => {
  const nested = join(dir, 'a', 'b');
  const lock = await DataDirLock.acquire(nested);
  assert.ok(existsSync(join(nested, 'datagate.lock')));
  await lock.release();
});

test('a file where the data directory should be is said plainly, not as mkdir EEXIST', async ({ dir }) => {
  const file = join(dir, 'a-file');
  await writeFile(file, '');
  await DataDirLock.acquire(file).then(
    () => assert.unreachable('a file was taken for a directory'),
    (error: Error) =>
      assert.is(
        error.message,
        `${file} cannot be used as the data directory: a file of that name is in the way (EEXIST)`,
      ),
  );
});

test('a second lock in the same process is refused', async ({ dir }) => {
  const lock = await DataDirLock.acquire(dir);
  try {
    await DataDirLock.acquire(dir).then(
      () => assert.unreachable('second lock was granted'),
      (error: Error) => assert.match(error.message, `data directory ${dir} is already open in this process`),
    );
  } finally {
    await lock.release();
  }
  await (await DataDirLock.acquire(dir)).release();
});

test('a lock of another live process is refused, naming its pid', async ({ dir, lockFile }) => {
  await writeFile(lockFile, `${process.ppid}\n`);
  await DataDirLock.acquire(dir).then(
    () => assert.unreachable('lock of a live process was taken'),
    (error: Error) =>
      assert.is(
        error.message,
        `data directory ${dir} is in use by another datagate process (pid ${process.ppid}); the embedded database is held by one process at a time: stop that one first`,
      ),
  );
  assert.is((await readFile(lockFile, 'utf8')).trim(), String(process.ppid));
});

test('a stale lock of a dead process is taken over', async ({ dir, lockFile }) => {
  await writeFile(lockFile, `${DEAD_PID}\n`);
  const lock = await DataDirLock.acquire(dir);
  assert.is((await readFile(lockFile, 'utf8')).trim(), String(process.pid));
  await lock.release();
});

test('a lock naming our pid but not held by us is stale (same pid after a restart)', async ({
  dir,
  lockFile,
}) => {
  await writeFile(lockFile, `${process.pid}\n`);
  const lock = await DataDirLock.acquire(dir);
  await lock.release();
  assert.is(existsSync(lockFile), false);
});

test('an unreadable lock file is refused rather than guessed at', async ({ dir, lockFile }) => {
  await writeFile(lockFile, 'garbage');
  await DataDirLock.acquire(dir).then(
    () => assert.unreachable('unreadable lock was taken'),
    (error: Error) => assert.match(error.message, 'unreadable lock file'),
  );
});

test('release leaves a lock that another process took over in place', async ({ dir, lockFile }) => {
  const lock = await DataDirLock.acquire(dir);
  await writeFile(lockFile, `${process.ppid}\n`);
  await lock.release();
  assert.is((await readFile(lockFile, 'utf8')).trim(), String(process.ppid));
});

test.run();
