// Loaded into the server by bench/realtime-fanout.ts (`node --import bench/realtime-probe.mjs …`): listens to
// the delivery trace (src/adapters/realtime-delivery-trace.ts) and, on SIGUSR2, writes per bench write (`rt <seq>`)
// when the server heard its commit's NOTIFY, read it from the log, sent it to its first socket and had written
// it to every socket (the end of the round of writes that carried it), as ms since the epoch (the clock the load processes use), with the process's CPU time
// (user + system, ms) at the first send and at the last write, and how many changes that round wrote, to
// DATAGATE_RT_PROBE_FILE. CPU time does not count the time the process waited for a core: on a shared box it
// is the steady half of a stage.
import { subscribe } from 'node:diagnostics_channel';
import { renameSync, writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

const file = process.env.DATAGATE_RT_PROBE_FILE;
/** By the event's log position. */
const changes = new Map();
/** The changes sent since the last round of writes ended: the next one writes them. */
let round = new Set();
let roundsTold = false;

const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

subscribe('datagate:realtime:events-read', ({ events, wokenAt }) => {
  const read = performance.now();
  for (const event of events) {
    const match = /^rt (\d+)$/.exec(String(event.after?.description ?? ''));
    if (match) {
      changes.set(event.id, {
        seq: Number(match[1]),
        woken: wokenAt ?? read,
        read,
        sent: 0,
        written: 0,
        cpuSent: 0,
        cpuWritten: 0,
        round: 0,
      });
    }
  }
});

subscribe('datagate:realtime:event-sent', (event) => {
  const change = changes.get(event.id);
  if (!change) return;
  if (change.sent === 0) {
    change.sent = performance.now();
    change.cpuSent = cpuMs();
  }
  round.add(change);
  // A server that tells no rounds (one from before WriteRounds: each socket uncorked on the next tick) has
  // made its writes once this tick's nextTicks and microtasks have run.
  if (!roundsTold) setImmediate(() => !roundsTold && stamp([change]));
});

function stamp(written) {
  const at = performance.now();
  const cpu = cpuMs();
  for (const change of written) {
    change.written = at;
    change.cpuWritten = cpu;
    change.round = written.length;
  }
}

subscribe('datagate:realtime:round-written', () => {
  roundsTold = true;
  stamp([...round]);
  round = new Set();
});

process.on('SIGUSR2', () => {
  if (!file) return;
  const at = (ms) => (ms === 0 ? null : performance.timeOrigin + ms);
  const rows = [...changes.values()].map((c) => [
    c.seq,
    at(c.woken),
    at(c.read),
    at(c.sent),
    at(c.written),
    c.cpuSent,
    c.cpuWritten,
    c.round,
  ]);
  writeFileSync(`${file}.part`, JSON.stringify(rows));
  renameSync(`${file}.part`, file);
});
