// The login floor: raw argon2id verifications/s with datagate's production cost and its concurrency bound.
// Usage: node bench/argon2-raw.mjs <seconds> [concurrency]  → prints {"verifiesPerSecond":…}
import { availableParallelism } from 'node:os';
import { argon2id, hash, verify } from 'argon2';

const seconds = Number(process.argv[2] ?? 5);
// The server's default bound (one fewer than the cores), unless given.
const concurrency = Number(process.argv[3] ?? Math.max(1, availableParallelism() - 1));
// DEFAULT_ARGON2_COST and DEFAULT_CONCURRENCY of src/adapters/crypto/argon2-password-hasher.ts.
const cost = { type: argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 };
const stored = await hash('operator-password', cost);

let done = 0;
const until = performance.now() + seconds * 1000;
const worker = async () => {
  while (performance.now() < until) {
    if (!(await verify(stored, 'operator-password'))) throw new Error('verify failed');
    done += 1;
  }
};
const started = performance.now();
await Promise.all(Array.from({ length: concurrency }, worker));
const elapsed = (performance.now() - started) / 1000;
console.log(JSON.stringify({ verifiesPerSecond: done / elapsed, concurrency, seconds: elapsed }));
