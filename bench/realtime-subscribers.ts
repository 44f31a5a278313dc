// A load process of bench/realtime-fanout.ts (forked by it, IPC): opens WebSocket subscribers on /websocket,
// records when each event arrives, and at the end turns arrivals into latency histograms against the times
// the harness reports for each write (its request and its response, and the server's trace of it).
//
// Two load processes take ~100,000 messages/s on the cores the server runs on: parsing each as JSON made the
// harness a rival of the server it measures. An update is recognised by its first bytes and its `rt <seq>` read
// from the bytes; only the rare other messages (init, ping, errors) are parsed. BENCH_RT_PARSE=1 parses every
// message, as a real client does and as the harness did before: the client's share, measured.
import { performance } from 'node:perf_hooks';
import { WebSocket } from 'ws';
import {
  HISTOGRAM_BUCKETS,
  type Histogram,
  type Served,
  type ToLoader,
  type ToParent,
} from './realtime-protocol.ts';

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
const served = new Map<number, Served>();

/** How every update the bench causes begins (the server writes `type` and `event` first, data's fields in order). */
const UPDATE = Buffer.from('{"type":"subscription","event":"update","data":[{"id":');
const SEQ = Buffer.from('"description":"rt ');
const PARSE_ALL = process.env.BENCH_RT_PARSE === '1';
const QUOTE = 0x22;
const ZERO = 0x30;

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

function isUpdate(raw: Buffer): boolean {
  return raw.length > UPDATE.length && raw.compare(UPDATE, 0, UPDATE.length, 0, UPDATE.length) === 0;
}

/** `description` is `rt <seq>` (bench/realtime-fanout.ts writes it so); -1 when it is not. */
function seqOf(raw: Buffer): number {
  const at = raw.indexOf(SEQ, UPDATE.length);
  if (at < 0) return -1;
  let seq = 0;
  let digits = 0;
  for (let i = at + SEQ.length; i < raw.length; i++) {
    const byte = raw[i]!;
    if (byte === QUOTE) return digits > 0 ? seq : -1;
    const digit = byte - ZERO;
    if (digit < 0 || digit > 9) return -1;
    seq = seq * 10 + digit;
    digits += 1;
  }
  return -1;
}

function open(url: string, token: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new WebSocket(`${url}?access_token=${encodeURIComponent(token)}`, {
      // The server's text is JSON it made; checking every message's UTF-8 is client work the bench does not need.
      skipUTF8Validation: true,
    });
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
    socket.on('message', (raw: Buffer) => {
      const at = now();
      if (PARSE_ALL) {
        const parsed = JSON.parse(String(raw)) as { data?: Array<{ description?: unknown }> };
        const match = /^rt (\d+)$/.exec(String(parsed.data?.[0]?.description ?? ''));
        if (match && isUpdate(raw)) {
          record(Number(match[1]), at);
          return;
        }
      } else if (isUpdate(raw)) {
        const seq = seqOf(raw);
        if (seq >= 0) record(seq, at);
        return;
      }
      const message = JSON.parse(String(raw)) as { type: string; event?: string; data?: unknown };
      if (message.type === 'ping') {
        pings += 1;
        socket.send('{"type":"pong"}');
      } else if (message.type === 'subscription' && message.event === 'init') {
        subscribed = true;
        resolve(true);
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

function histograms() {
  const fromRequest = new Uint32Array(HISTOGRAM_BUCKETS + 1);
  const fromResponse = new Uint32Array(HISTOGRAM_BUCKETS + 1);
  const fromWoken = new Uint32Array(HISTOGRAM_BUCKETS + 1);
  const afterWritten = new Uint32Array(HISTOGRAM_BUCKETS + 1);
  let unmatched = 0;
  let untraced = 0;
  const bucket = (ms: number) => Math.min(HISTOGRAM_BUCKETS, Math.max(0, Math.round(ms * 10)));
  for (let i = 0; i < arrivals; i++) {
    const write = written.get(seqs[i]!);
    if (!write) {
      unmatched += 1;
      continue;
    }
    fromRequest[bucket(times[i]! - write.sent)]! += 1;
    fromResponse[bucket(times[i]! - write.responded)]! += 1;
    const change = served.get(seqs[i]!);
    if (!change) {
      untraced += 1;
      continue;
    }
    fromWoken[bucket(times[i]! - change.woken)]! += 1;
    afterWritten[bucket(times[i]! - change.written)]! += 1;
  }
  const sparse = (counts: Uint32Array): Histogram =>
    [...counts.entries()].filter(([, count]) => count > 0) as Histogram;
  return {
    fromRequest: sparse(fromRequest),
    fromResponse: sparse(fromResponse),
    fromWoken: sparse(fromWoken),
    afterWritten: sparse(afterWritten),
    unmatched,
    untraced,
  };
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
    case 'served':
      for (const change of message.changes) served.set(change.seq, change);
      return;
    case 'count':
      send({ type: 'counted', arrivals });
      return;
    case 'finish': {
      send({ type: 'result', arrivals, closedEarly, pings, ...histograms() });
      // The harness kills this process when done: leaving now could beat the result to the harness.
      for (const socket of sockets) socket.terminate();
      return;
    }
  }
});
