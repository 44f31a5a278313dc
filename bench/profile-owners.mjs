// Busy time of a V8 .cpuprofile (from `node --cpu-prof`) by owner: each sample is charged to the nearest frame,
// from the leaf up, that belongs to a package or to datagate's src, so node internals count for whoever called
// them. Socket and file writes are a bucket of their own: on a loaded box the kernel's loopback send (and the
// wait for the core afterwards) lands there, whoever wrote. Usage: node bench/profile-owners.mjs <file> [top=30]
import { readFileSync } from 'node:fs';

const profile = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const top = Number(process.argv[3] ?? 30);
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const parentOf = new Map();
for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
const selfMicros = new Map();
for (let i = 0; i < profile.samples.length; i += 1) {
  const id = profile.samples[i];
  selfMicros.set(id, (selfMicros.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
}

const WRITES = new Set(['writev', 'writevGeneric', 'writeString', 'writeBuffer']);
const ownerOf = (url) => {
  const pkg = url.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/);
  if (pkg) return pkg[1];
  const src = url.match(/src\/(.*)$/);
  return src ? `datagate ${src[1].split('/').slice(0, 2).join('/')}` : null;
};

let busy = 0;
const byOwner = new Map();
const add = (key, micros) => byOwner.set(key, (byOwner.get(key) ?? 0) + micros);
for (const [id, micros] of selfMicros) {
  const leaf = byId.get(id).callFrame;
  if (leaf.functionName === '(idle)') continue;
  busy += micros;
  if (WRITES.has(leaf.functionName)) {
    add('(socket and file writes)', micros);
    continue;
  }
  let owner = null;
  for (let at = id; at !== undefined && owner === null; at = parentOf.get(at))
    owner = ownerOf(byId.get(at).callFrame.url);
  add(
    owner ?? (leaf.functionName.startsWith('(') ? leaf.functionName : '(node, no package on the stack)'),
    micros,
  );
}
const pct = (micros) => `${((100 * micros) / busy).toFixed(1).padStart(5)} %`;
console.log(`busy ${(busy / 1e6).toFixed(2)} s`);
const rows = [...byOwner].sort((a, b) => b[1] - a[1]);
const ours = rows.filter(([key]) => key.startsWith('datagate ')).reduce((sum, [, micros]) => sum + micros, 0);
console.log(`${pct(ours)}  datagate src, all of it`);
for (const [key, micros] of rows.slice(0, top)) console.log(`${pct(micros)}  ${key}`);
