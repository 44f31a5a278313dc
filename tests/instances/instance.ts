import { performance } from 'node:perf_hooks';
import { call } from '../faults/http.ts';
import { type Served, serve } from '../support/datagate-process.ts';

/** How long a process may take to start under load (tsx compiles the sources on start). */
const START_MS = 30_000;

export type Instance = Served;

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
  const instance = await serve(env, { firstStart: false });
  const started = performance.now();
  while ((await listenerOf(instance))?.status !== 'ok') {
    if (performance.now() - started > START_MS) {
      await instance.stop();
      throw new Error(
        `the change feed of ${instance.url} did not listen within ${START_MS} ms: ${instance.stderr()}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return instance;
}
