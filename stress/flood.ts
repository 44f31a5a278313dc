// One caller flooding the server: STRESS_FLOOD_CONCURRENCY loops, each sending STRESS_FLOOD_PATH with one
// token as fast as the answers come, for STRESS_FLOOD_MS. Run by stress/run.ts in a process of its own, so
// its work (bodies of up to a few MB) never delays the measuring process's clock. Prints its tally as JSON.
const env = process.env;
const base = env.STRESS_BASE ?? '';
const token = env.STRESS_FLOOD_TOKEN ?? '';
const path = env.STRESS_FLOOD_PATH ?? '';
const concurrency = Number(env.STRESS_FLOOD_CONCURRENCY ?? 50);
const until = Date.now() + Number(env.STRESS_FLOOD_MS ?? 20_000);

export type FloodTally = { statuses: Record<string, number>; latenciesMs: number[]; retryAfter: string[] };

const tally: FloodTally = { statuses: {}, latenciesMs: [], retryAfter: [] };

async function loop(): Promise<void> {
  while (Date.now() < until) {
    const began = performance.now();
    let status = 'no answer';
    try {
      const response = await fetch(`${base}${path}`, {
        headers: { authorization: `Bearer ${token}` },
        signal: AbortSignal.timeout(60_000),
      });
      await response.arrayBuffer();
      status = String(response.status);
      const retryAfter = response.headers.get('retry-after');
      if (retryAfter && tally.retryAfter.length < 5) tally.retryAfter.push(`${status}: ${retryAfter}`);
    } catch {
      // counted as "no answer"
    }
    tally.statuses[status] = (tally.statuses[status] ?? 0) + 1;
    tally.latenciesMs.push(performance.now() - began);
  }
}

await Promise.all(Array.from({ length: concurrency }, loop));
process.stdout.write(JSON.stringify(tally));
