import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { chmod, chown, mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * A throwaway PostgreSQL primary and one hot standby streaming from it, each in its own temporary
 * directory on a free port, made with PostgreSQL's own tools. Nothing of the machine's own server (its
 * configuration, its port) is touched. `stop()` removes both.
 */
export type StreamingReplica = {
  /** `postgresql://postgres@127.0.0.1:<port>/postgres` of the primary. */
  readonly primaryUrl: string;
  readonly replicaUrl: string;
  /** Stops the standby's server (fast shutdown): it then refuses connections. */
  stopReplica(): Promise<void>;
  /** Starts it again; resolves once it accepts connections. */
  startReplica(): Promise<void>;
  /** Stops both servers and removes their directories. */
  stop(): Promise<void>;
};

/** The directory holding `initdb`, `pg_basebackup` and `pg_ctl` of the newest installed PostgreSQL. */
function postgresBin(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((name) => /^\d+$/.test(name))
    .sort((a, b) => Number(b) - Number(a));
  for (const version of versions) {
    const bin = join(root, version, 'bin');
    if (['initdb', 'pg_basebackup', 'pg_ctl'].every((tool) => existsSync(join(bin, tool)))) return bin;
  }
  return undefined;
}

const asRoot = userInfo().uid === 0;

/**
 * Why a streaming pair cannot be made here, or undefined when it can: the tools must be installed, and as
 * root there must be a `postgres` user to run them (PostgreSQL refuses to run as root).
 */
export const streamingReplicaSkip: string | undefined = (() => {
  if (!postgresBin()) return 'initdb, pg_basebackup and pg_ctl not found under /usr/lib/postgresql';
  if (asRoot && !existsSync('/usr/sbin/runuser')) return 'running as root without runuser';
  return undefined;
})();

async function tool(name: string, args: ReadonlyArray<string>): Promise<void> {
  const path = join(postgresBin()!, name);
  const [file, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', path, ...args]] : [path, [...args]];
  await run(file, argv, { timeout: 30_000 });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * Server settings of both: only TCP on 127.0.0.1 (no socket in the shared /var/run/postgresql), small, and
 * quick to stop. `wal_receiver_status_interval` short so the standby reports its position often.
 */
function serverOptions(port: number, dir: string): string {
  return [
    `-p ${port}`,
    '-c listen_addresses=127.0.0.1',
    `-c unix_socket_directories=${dir}`,
    '-c shared_buffers=16MB',
    '-c max_connections=40',
    '-c fsync=off',
    '-c wal_receiver_status_interval=1s',
  ].join(' ');
}

export async function startStreamingReplica(): Promise<StreamingReplica> {
  const root = await mkdtemp(join(tmpdir(), 'datagate-replica-'));
  const primaryDir = join(root, 'primary');
  const replicaDir = join(root, 'replica');
  if (asRoot) {
    const { stdout } = await run('id', ['-u', 'postgres']);
    const { stdout: group } = await run('id', ['-g', 'postgres']);
    await chown(root, Number(stdout.trim()), Number(group.trim()));
  }
  await chmod(root, 0o700);
  const [primaryPort, replicaPort] = [await freePort(), await freePort()];
  const started: string[] = [];
  const ctl = (dir: string, port: number, action: 'start' | 'stop') =>
    action === 'start'
      ? tool('pg_ctl', ['-D', dir, '-w', '-l', `${dir}.log`, '-o', serverOptions(port, root), 'start'])
      : tool('pg_ctl', ['-D', dir, '-w', '-m', 'fast', 'stop']);
  const stopAll = async () => {
    for (const dir of started.reverse()) await ctl(dir, 0, 'stop').catch(() => {});
    await rm(root, { recursive: true, force: true });
  };
  try {
    await tool('initdb', ['-D', primaryDir, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8']);
    await ctl(primaryDir, primaryPort, 'start');
    started.push(primaryDir);
    await tool('pg_basebackup', [
      '-h',
      '127.0.0.1',
      '-p',
      String(primaryPort),
      '-U',
      'postgres',
      '-D',
      replicaDir,
      '-R',
      '-X',
      'stream',
      '--no-sync',
    ]);
    await ctl(replicaDir, replicaPort, 'start');
    started.push(replicaDir);
  } catch (error) {
    await stopAll();
    throw error;
  }
  const url = (port: number) => `postgresql://postgres@127.0.0.1:${port}/postgres`;
  return {
    primaryUrl: url(primaryPort),
    replicaUrl: url(replicaPort),
    stopReplica: () => ctl(replicaDir, replicaPort, 'stop'),
    startReplica: () => ctl(replicaDir, replicaPort, 'start'),
    stop: stopAll,
  };
}
