import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { call } from '../faults/http.ts';

const BIN = new URL('../../bin/datagate.mjs', import.meta.url).pathname;

/** How long a process may take to start under load (tsx compiles the sources on start). */
const START_MS = 30_000;

export type Instance = { readonly url: string; stop(): Promise<number | null> };

type Health = { status: string; checks: { listener?: { status: string; schema: string } } };

/** The change feed's state on an instance, as its health reports it. */
export async function listenerOf(
  instance: Instance,
): Promise<{ status: string; schema: string } | undefined> {
  const answer = await call(instance.url, 'GET', '/server/health').catch(() => undefined);
  return (answer?.body as Health | undefined)?.checks.listener;
}

/**
 * `datagate serve` as a process of its own on a free port; resolves once it listens and its change feed
 * is listening too (health's `listener` is `ok`), so that no change made afterwards can be missed.
 */
export async function startInstance(env: Record<string, string>): Promise<Instance> {
  const child = spawn(process.execPath, [BIN, 'serve'], {
    env: { ...process.env, PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((done) => child.on('close', done));
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
      const found = /listening on (http:\S+)/.exec(stdout)?.[1];
      if (found) resolve(found);
    });
    void exited.then((code) => reject(new Error(`serve exited with ${code}: ${stderr}`)));
  });
  const instance: Instance = {
    url,
    stop: () => {
      child.kill('SIGTERM');
      return exited;
    },
  };
  const started = performance.now();
  while ((await listenerOf(instance))?.status !== 'ok') {
    if (performance.now() - started > START_MS) {
      await instance.stop();
      throw new Error(`the change feed of ${url} did not listen within ${START_MS} ms: ${stderr}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return instance;
}
