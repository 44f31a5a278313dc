// CPU per request by group, from a `perf` profile of a server (bench/NOTES.md §7.1). Unlike `node --cpu-prof`,
// perf samples CPU time only, in every thread, kernel included. Record (the server started with
// `--perf-basic-prof`, so JIT frames have names; e.g. PROBE_NODE_ARGS for bench/cpu-per-request.ts):
//   perf record -e cpu-clock -g -p <pid> -o server.data -- sleep 12
// then: perf script -i server.data | node bench/perf-groups.mjs <main thread id = pid> <CPU µs per request>
// Each sample goes to the group of the first JavaScript frame above it (builtins, a syscall's kernel work
// and V8's runtime count with the JS that called them), or of the thread it ran on. A second table splits
// datagate's own code by what it does for the request (FEATURES: the first pattern its file matches).
import { readFileSync } from 'node:fs';

const [mainThread, microsPerRequest] = process.argv.slice(2);
if (!mainThread || !microsPerRequest) throw new Error('usage: perf-groups.mjs <main tid> <µs per request>');

const PACKAGE_GROUPS = {
  pg: 'pg, pg-protocol, pg-pool',
  'pg-protocol': 'pg, pg-protocol, pg-pool',
  'pg-pool': 'pg, pg-protocol, pg-pool',
  'pg-types': 'pg, pg-protocol, pg-pool',
  koa: 'koa, @koa/router, koa-compose, delegates',
  '@koa/router': 'koa, @koa/router, koa-compose, delegates',
  'koa-compose': 'koa, @koa/router, koa-compose, delegates',
  delegates: 'koa, @koa/router, koa-compose, delegates',
  'on-finished': 'koa, @koa/router, koa-compose, delegates',
  'ee-first': 'koa, @koa/router, koa-compose, delegates',
  pino: 'pino (the access log)',
  'sonic-boom': 'pino (the access log)',
};
const FEATURES = [
  [
    /http\/(authenticated|bearer-token)|application\/auth\/|adapters\/tokens\/|caching-(user|role|refresh)/,
    'the caller: token, user, role',
  ],
  [/read-rules|permission|domain\/permissions\//, 'the rules'],
  [
    /domain\/query\/|item-query|parse-as-caller|relational-read|collection-access|with-fresh-schema/,
    'the query: parse, check, coerce',
  ],
  [/persistence\//, 'the statement: compile, prepare, run, read'],
  [
    /request-frame|request-id|security-headers|access-log|request-metrics/,
    'the frame: id, security headers, log line, metrics',
  ],
  [/caller-concurrency-limit|admission/, "the caller's share (per-caller limit, admission)"],
  [
    /match-by-segment|unanswered-route|failure-answer|well-formed-input|modules\/|export-route/,
    'routing and input checks',
  ],
  [/respond|json-answer/, 'the answer'],
  [/application\/items\//, 'the handler'],
];
const GC = /Scavenger|MarkCompact|Heap::CollectGarbage|Sweeper|IncrementalMarking|ConcurrentMarking/;

const features = new Map();

function featureOf(path) {
  return FEATURES.find(([pattern]) => pattern.test(path))?.[1] ?? `other: ${path.replace(/:\d+.*/, '')}`;
}

function groupOf(thread, frames, inKernel) {
  if (thread !== mainThread)
    return "V8's worker threads (GC: concurrent marking, parallel scavenges, sweeping)";
  if (frames.slice(0, 14).some((frame) => GC.test(frame))) return 'GC on the main thread';
  const js = frames.find((frame) => frame.startsWith('JS:'));
  if (!js)
    return inKernel ? 'kernel outside JS (epoll, reads, wake-ups)' : 'native outside JS (libuv, llhttp, V8)';
  const file = js.match(/(?:file:\/\/)?\/[^ ]*?\/((?:node_modules|dist|src|bench)\/\S+?):\d+/);
  if (file) {
    const path = file[1];
    if (path.startsWith('node_modules/')) {
      const [scopeOrName, name] = path.split('/').slice(1);
      return (
        PACKAGE_GROUPS[scopeOrName.startsWith('@') ? `${scopeOrName}/${name}` : scopeOrName] ??
        'other packages'
      );
    }
    if (path.startsWith('bench/')) return 'the bench script itself';
    const feature = featureOf(path);
    features.set(feature, (features.get(feature) ?? 0) + 1);
    return 'datagate code';
  }
  const internal = js.match(/node:(\S+?):\d+/)?.[1] ?? '';
  if (/async_hooks|task_queues|promises/.test(internal))
    return 'promise machinery (task queues, async hooks)';
  if (/stream|^net$|_http|buffer/.test(internal)) return "node's http, net and streams (with their syscalls)";
  return internal ? 'other node internals' : 'other JS';
}

const counts = new Map();
let total = 0;
for (const block of readFileSync(0, 'utf8').split('\n\n')) {
  const lines = block.trim().split('\n');
  if (lines.length < 2) continue;
  const thread = lines[0].trim().split(/\s+/)[1];
  const frames = lines.slice(1).map((line) => line.trim().split(' ').slice(1).join(' '));
  const group = groupOf(thread, frames, lines[1].includes('[kernel'));
  counts.set(group, (counts.get(group) ?? 0) + 1);
  total++;
}
function table(title, rows) {
  console.log(`| ${title} | µs per request | share |\n|---|---|---|`);
  for (const [name, count] of [...rows].sort((a, b) => b[1] - a[1])) {
    const share = count / total;
    console.log(
      `| ${name} | ${Math.round(share * Number(microsPerRequest))} | ${(share * 100).toFixed(1)} % |`,
    );
  }
}
table('group', counts);
if (features.size > 0) {
  console.log();
  table("datagate's code by what it does", features);
}
