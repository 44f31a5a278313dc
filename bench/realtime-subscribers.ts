// A load process of bench/realtime-fanout.ts (forked by it, IPC): opens WebSocket subscribers on /websocket,
// records when each event arrives, and at the end turns arrivals into latency histograms against the times
// the harness reports for each write (its request and its response).
import { performance } from 'node:perf_hooks';
import { WebSocket } from 'ws';
import { HISTOGRAM_BUCKETS, type Histogram, type ToLoader, type ToParent } from './realtime-protocol.ts';

const now = () => performance.timeOrigin + performance.now();
const send = (message: ToParent) => process.send?.(message);

const sockets: WebSocket[] = [];
/** Arrivals as (seq, time) pairs, grown as needed: one write fans out to many subscribers. */
let seqs = new Float64Array(1 << 16);
let times = new Float64Array(1 << 16);
let arrivals = 0;
let closedEarly = 0;
let pings = 0;
const written = new Map<number, { sent: number; responded: number }>();

function record(seq: number, at: number): void {
  if (arrivals === seqs.length) {
    const grow = (from: Float64Array) => {
      const to = new Float64Array(from.length * 2);
      to.set(from);
      return to;
    };
    seqs = grow(seqs);
    times = grow(times);
  }
  seqs[arrivals] = seq;
  times[arrivals] = at;
  arrivals += 1;
}

/** `description` is `rt <seq>` (bench/realtime-fanout.ts writes it so). */
function seqOf(data: unknown): number | null {
  const item = Array.isArray(data) ? (data[0] as { description?: unknown } | undefined) : undefined;
  const match = typeof item?.description === 'string' ? /^rt (\d+)$/.exec(item.description) : null;
  return match ? Number(match[1]) : null;
}

function open(url: string, token: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new WebSocket(`${url}?access_token=${encodeURIComponent(token)}`);
    let subscribed = false;
    socket.on('open', () => {
      socket.send(
        JSON.stringify({
          type: 'subscribe',
          collection: 'cargos',
          uid: 'bench',
          query: { fields: ['id', 'description'], limit: 1 },
        }),
      );
    });
    socket.on('message', (raw) => {
      const at = now();
      const message = JSON.parse(String(raw)) as { type: string; event?: string; data?: unknown };
      if (message.type === 'ping') {
        pings += 1;
        socket.send('{"type":"pong"}');
      } else if (message.type === 'subscription' && message.event === 'init') {
        subscribed = true;
        resolve(true);
      } else if (message.type === 'subscription' && message.event === 'update') {
        const seq = seqOf(message.data);
        if (seq !== null) record(seq, at);
      } else if (message.type === 'subscribe') {
        resolve(false);
      }
    });
    socket.on('error', () => resolve(false));
    socket.on('close', () => {
      if (subscribed) closedEarly += 1;
      resolve(false);
    });
    sockets.push(socket);
  });
}

function histogram(): { fromRequest: Histogram; fromResponse: Histogram; unmatched: number } {
  const fromRequest = new Uint32Array(HISTOGRAM_BUCKETS + 1);
  const fromResponse = new Uint32Array(HISTOGRAM_BUCKETS + 1);
  let unmatched = 0;
  const bucket = (ms: number) => Math.min(HISTOGRAM_BUCKETS, Math.max(0, Math.round(ms * 10)));
  for (let i = 0; i < arrivals; i++) {
    const write = written.get(seqs[i]!);
    if (!write) {
      unmatched += 1;
      continue;
    }
    fromRequest[bucket(times[i]! - write.sent)]! += 1;
    fromResponse[bucket(times[i]! - write.responded)]! += 1;
  }
  const sparse = (counts: Uint32Array): Histogram =>
    [...counts.entries()].filter(([, count]) => count > 0) as Histogram;
  return { fromRequest: sparse(fromRequest), fromResponse: sparse(fromResponse), unmatched };
}

process.on('message', async (message: ToLoader) => {
  switch (message.type) {
    case 'open': {
      let opened = 0;
      let failed = 0;
      // A few at a time: each subscribe runs its `init` list query.
      for (let i = 0; i < message.tokens.length; i += message.batch) {
        const results = await Promise.all(
          message.tokens.slice(i, i + message.batch).map((token) => open(message.url, token)),
        );
        const ok = results.filter(Boolean).length;
        opened += ok;
        failed += results.length - ok;
      }
      send({ type: 'opened', opened, failed });
      return;
    }
    case 'written':
      for (const write of message.writes) written.set(write.seq, write);
      return;
    case 'count':
      send({ type: 'counted', arrivals });
      return;
    case 'finish': {
      const { fromRequest, fromResponse, unmatched } = histogram();
      send({ type: 'result', arrivals, unmatched, closedEarly, pings, fromRequest, fromResponse });
      // The harness kills this process when done: leaving now could beat the result to the harness.
      for (const socket of sockets) socket.terminate();
      return;
    }
  }
});
