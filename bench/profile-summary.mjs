// Top self-time functions of a V8 .cpuprofile (from `node --cpu-prof`).
// Usage: node bench/profile-summary.mjs <file.cpuprofile> [top=25]
import { readFileSync } from 'node:fs';

const profile = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const top = Number(process.argv[3] ?? 25);
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const deltas = profile.timeDeltas;
const selfMicros = new Map();
for (let i = 0; i < profile.samples.length; i += 1) {
  const id = profile.samples[i];
  selfMicros.set(id, (selfMicros.get(id) ?? 0) + (deltas[i] ?? 0));
}
const total = [...selfMicros.values()].reduce((a, b) => a + b, 0);
const byFunction = new Map();
for (const [id, micros] of selfMicros) {
  const { callFrame } = byId.get(id);
  const file = callFrame.url.replace(/^file:\/\//, '').replace(/^.*node_modules\//, '~/');
  const where = file ? `${file.replace(`${process.cwd()}/`, '')}:${callFrame.lineNumber + 1}` : '';
  const key = `${callFrame.functionName || '(anonymous)'} ${where}`.trim();
  byFunction.set(key, (byFunction.get(key) ?? 0) + micros);
}
const idle = byFunction.get('(idle)') ?? 0;
byFunction.delete('(idle)');
const byPackage = new Map();
for (const [key, micros] of byFunction) {
  const match = key.match(/~\/((?:@[^/]+\/)?[^/]+)/);
  const bucket = match
    ? match[1]
    : key.startsWith('(')
      ? key
      : /src\//.test(key)
        ? 'datagate src'
        : 'node internals';
  byPackage.set(bucket, (byPackage.get(bucket) ?? 0) + micros);
}
const busy = total - idle;
// Shares of the busy (non-idle) time: the server idles between cases while the floor and pgbench run.
const pct = (micros) => `${((100 * micros) / busy).toFixed(1).padStart(5)} %`;
console.log(
  `sampled ${(total / 1e6).toFixed(2)} s, busy ${(busy / 1e6).toFixed(2)} s; shares below are of busy time`,
);
console.log('\nself time by function:');
for (const [key, micros] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, top)) {
  console.log(`${pct(micros)}  ${key}`);
}
console.log('\nself time by package:');
for (const [key, micros] of [...byPackage].sort((a, b) => b[1] - a[1]).slice(0, 15)) {
  console.log(`${pct(micros)}  ${key}`);
}
