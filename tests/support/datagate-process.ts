import { spawn } from 'node:child_process';

/** The README's commands run the development CLI; so do these tests. */
export const BIN = new URL('../../bin/datagate.mjs', import.meta.url).pathname;

export type Finished = { code: number | null; stdout: string; stderr: string };
export type Served = {
  url: string;
  stop(): Promise<number | null>;
  /** What the server wrote to stderr so far, for a failure's message. */
  stderr(): string;
};

/** One command of the real command line, run to its end. */
export function datagate(args: string[], env: Record<string, string>): Promise<Finished> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/**
 * `datagate serve` on a free port: resolves once the server says where it listens and, on its `firstStart`
 * over a database without an admin yet, that it created the first admin, i.e. once its start-up work is
 * done (on the embedded database, later starts do that work before they listen).
 */
export function serve(env: Record<string, string>, { firstStart = true } = {}): Promise<Served> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'serve'], {
      env: { ...process.env, PORT: '0', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | null>((done) => child.on('close', done));
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
      const url = /listening on (http:\S+)/.exec(stdout)?.[1];
      if (url && (!firstStart || stdout.includes('Created the first admin')))
        resolve({
          url,
          stop: () => {
            child.kill('SIGTERM');
            return exited;
          },
          stderr: () => stderr,
        });
    });
    void exited.then((code) => reject(new Error(`serve exited with ${code}: ${stderr}`)));
  });
}
