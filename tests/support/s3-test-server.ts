import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { S3FileStorage } from '../../src/adapters/s3/s3-file-storage.ts';

export const TEST_BUCKET = 'datagate-test';

/** s3rver accepts any credentials; these are its documented defaults. */
const CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

const SERVER_SCRIPT = join(import.meta.dirname, 's3rver-process.ts');

export type S3TestServer = {
  /** `http://127.0.0.1:<port>`. */
  readonly endpoint: string;
  /** A store on the test bucket. */
  store(options?: { listPageSize?: number }): S3FileStorage;
  close(): Promise<void>;
};

/**
 * s3rver on an ephemeral port, in a process of its own (see s3rver-process.ts; its memory is then not
 * this process's), its bucket in a temporary folder removed at `close()`.
 */
export async function startS3TestServer(): Promise<S3TestServer> {
  const directory = await mkdtemp(join(tmpdir(), 'datagate-s3-'));
  const child = spawn(
    process.execPath,
    ['--openssl-legacy-provider', '--import', 'tsx', SERVER_SCRIPT, directory, TEST_BUCKET],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const port = await portOf(child);
  const endpoint = `http://127.0.0.1:${port}`;
  const stores: S3FileStorage[] = [];
  return {
    endpoint,
    store: (options = {}) => {
      const store = new S3FileStorage({
        bucket: TEST_BUCKET,
        region: 'us-east-1',
        endpoint,
        forcePathStyle: true,
        credentials: CREDENTIALS,
        ...options,
      });
      stores.push(store);
      return store;
    },
    close: async () => {
      for (const store of stores) store.close();
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
      await rm(directory, { recursive: true, force: true });
    },
  };
}

async function portOf(child: ChildProcess): Promise<number> {
  const lines = createInterface({ input: child.stdout! });
  const exited = once(child, 'exit').then(([code]) => {
    throw new Error(`s3rver exited (${code}) before listening`);
  });
  // Once it listens, its exit is the one close() asks for.
  exited.catch(() => {});
  const listening = (async () => {
    for await (const line of lines) return (JSON.parse(line) as { port: number }).port;
    throw new Error('s3rver closed its output before listening');
  })();
  return Promise.race([listening, exited]);
}
