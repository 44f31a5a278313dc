import { type ChildProcess, spawn } from 'node:child_process';

const BIN = new URL('../../bin/datagate.mjs', import.meta.url).pathname;

export type Served = {
  child: ChildProcess;
  port: number;
  stdout: () => string;
  exited: Promise<number | null>;
};

/**
 * The real command line, `serve` on an ephemeral port with info logs; resolves once its stdout matches
 * `listening`, whose first group is the port.
 */
export function serve(
  env: Record<string, string>,
  listening: RegExp = /listening on http:\/\/127\.0\.0\.1:(\d+)/,
): Promise<Served> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'serve'], {
      env: { ...process.env, PORT: '0', LOG_LEVEL: 'info', ...env },
    });
    const exited = new Promise<number | null>((done) => child.on('close', done));
    let stdout = '';
    let stderr = '';
    child.stderr!.on('data', (chunk) => (stderr += chunk));
    child.stdout!.on('data', (chunk) => {
      stdout += chunk;
      const match = listening.exec(stdout);
      if (match) resolve({ child, port: Number(match[1]), stdout: () => stdout, exited });
    });
    void exited.then((code) => reject(new Error(`serve exited early with ${code}: ${stderr}`)));
  });
}
