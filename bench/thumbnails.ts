// Thumbnails per second with the transform queue full, and peak RSS (issue 19, "Measured"). In one
// process: ImageVariants over the in-memory file store and sharp, as /assets/:id calls them; no HTTP, no
// database. Not a test.
// Run: make bench-thumbnails   (THUMBNAILS_SECONDS=20, THUMBNAILS_CONCURRENCY=<cores>, THUMBNAILS_QUEUE=32)

import { writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, totalmem } from 'node:os';
import { resolve } from 'node:path';
import sharp from 'sharp';
import { numberFromEnv } from '../scripts/local-harness.ts';
import { SystemClock } from '../src/adapters/clock/system-clock.ts';
import { InMemoryFileStorage } from '../src/adapters/persistence/memory/in-memory-file-storage.ts';
import { SharpImageTransformer } from '../src/adapters/sharp/sharp-image-transformer.ts';
import { type ImageFile, ImageVariants } from '../src/application/files/image-variants.ts';
import { DomainError } from '../src/domain/errors.ts';

const ROOT = new URL('..', import.meta.url).pathname;
const SECONDS = numberFromEnv('THUMBNAILS_SECONDS', 20, 1);
const CONCURRENCY = numberFromEnv('THUMBNAILS_CONCURRENCY', availableParallelism(), 1);
const QUEUE = numberFromEnv('THUMBNAILS_QUEUE', 32, 0);
const RESULTS = process.env.THUMBNAILS_RESULTS ?? 'bench/results/2026-11-26-thumbnails.md';
const THUMBNAIL = { width: '200', format: 'webp' };

const log = (message: string) => process.stderr.write(`[thumbnails bench] ${message}\n`);
const rssMb = () => Math.round(process.memoryUsage.rss() / 1024 ** 2);

/** The next file id: never one asked before, in any run, so that every request is a transform. */
let next = 0;

/** A 3000 × 2000 photo-like JPEG: noise, so that it neither compresses nor decodes like a flat colour. */
async function photo(): Promise<Buffer> {
  return sharp({
    create: {
      width: 3000,
      height: 2000,
      channels: 3,
      background: { r: 90, g: 120, b: 150 },
      noise: { type: 'gaussian', mean: 120, sigma: 40 },
    },
  })
    .jpeg({ quality: 85 })
    .toBuffer();
}

async function* bytesOf(bytes: Uint8Array): AsyncIterable<Uint8Array> {
  yield bytes;
}

async function drain(bytes: AsyncIterable<Uint8Array>): Promise<void> {
  for await (const _ of bytes);
}

type Run = { made: number; refused: number; seconds: number; peakRssMb: number };

/**
 * Keeps `inFlight` thumbnail requests going for `seconds`, each of a file not transformed before (so each
 * one is a transform, none a read of a stored variant), and reads each answer whole.
 */
async function thumbnails(variants: ImageVariants, inFlight: number, seconds: number): Promise<Run> {
  let made = 0;
  let refused = 0;
  let peakRssMb = rssMb();
  const sampler = setInterval(() => {
    peakRssMb = Math.max(peakRssMb, rssMb());
  }, 50);
  const started = performance.now();
  const deadline = started + seconds * 1000;
  const file = (): ImageFile => ({
    id: `photo-${next++}`,
    key: 'files/photo',
    type: 'image/jpeg',
    width: 3000,
    height: 2000,
    modifiedOn: new Date(0),
  });
  async function client() {
    while (performance.now() < deadline) {
      try {
        const variant = await variants.open(file(), THUMBNAIL, undefined);
        if (variant) await drain(await variant.read());
        made++;
      } catch (error) {
        if (!(error instanceof DomainError && error.code === 'SERVICE_UNAVAILABLE')) throw error;
        refused++;
        // As a client that honours `Retry-After` would.
        const wait = Math.min((error.extensions.retryAfter ?? 1) * 1000, deadline - performance.now());
        await new Promise((resolve) => setTimeout(resolve, Math.max(wait, 0)));
      }
    }
  }
  await Promise.all(Array.from({ length: inFlight }, client));
  clearInterval(sampler);
  return { made, refused, seconds: (performance.now() - started) / 1000, peakRssMb };
}

/** The same thumbnails once made: each request a read of the stored variant. */
async function storedReads(variants: ImageVariants, count: number): Promise<number> {
  const started = performance.now();
  const file: ImageFile = { id: 'photo-0', key: 'files/photo', type: 'image/jpeg', modifiedOn: new Date(0) };
  for (let index = 0; index < count; index++) {
    const variant = await variants.open(file, THUMBNAIL, undefined);
    if (variant) await drain(await variant.read());
  }
  return count / ((performance.now() - started) / 1000);
}

const rate = (run: Run) => (run.made / run.seconds).toFixed(1);

async function main() {
  const source = await photo();
  log(`source: 3000 × 2000 JPEG, ${(source.byteLength / 1024 ** 2).toFixed(2)} MB`);
  const storage = new InMemoryFileStorage();
  await storage.write('files/photo', bytesOf(source));
  const transforms = { concurrency: CONCURRENCY, queue: QUEUE, maxPixels: 50_000_000, maxDimension: 6000 };
  const variants = new ImageVariants(
    storage,
    new SharpImageTransformer(transforms),
    { ...transforms, presets: new Map() },
    new SystemClock(),
  );
  const baselineRssMb = rssMb();
  log(`warm-up, then ${SECONDS} s with ${CONCURRENCY + QUEUE} requests in flight (the queue full)`);
  await thumbnails(variants, CONCURRENCY, 2);
  const alone = await thumbnails(variants, 1, Math.min(SECONDS, 10));
  log(`one at a time: ${rate(alone)} thumbnails/s`);
  const full = await thumbnails(variants, CONCURRENCY + QUEUE, SECONDS);
  log(`queue full: ${rate(full)} thumbnails/s, peak RSS ${full.peakRssMb} MB`);
  const over = await thumbnails(variants, 2 * (CONCURRENCY + QUEUE), Math.min(SECONDS, 10));
  log(`twice over: ${rate(over)} thumbnails/s, ${over.refused} refused with 503`);
  const reads = await storedReads(variants, 2000);
  log(`stored variants: ${reads.toFixed(0)} reads/s`);

  const lines = [
    '# Thumbnails: 200-pixel WebP of a 3000 × 2000 JPEG (bench/thumbnails.ts)',
    '',
    `${new Date().toISOString()}, ${cpus().length} cores (${cpus()[0]?.model ?? '?'}), ${(totalmem() / 1024 ** 3).toFixed(1)} GB, Node ${process.version}, sharp ${sharp.versions.sharp} (libvips ${sharp.versions.vips}).`,
    `Load average at the end: ${loadavg()
      .map((load) => load.toFixed(1))
      .join(', ')} on ${cpus().length} cores: on a box shared with other work the rates are indicative only.`,
    `In one process: \`ImageVariants\` over the in-memory file store and \`SharpImageTransformer\` (no HTTP, no database),`,
    `\`storage.transforms.concurrency\` ${CONCURRENCY}, \`queue\` ${QUEUE}. The source: a photo-like (noisy) JPEG, quality 85,`,
    `${(source.byteLength / 1024 ** 2).toFixed(2)} MB. Every request asks a new file's thumbnail (a transform each), and reads the answer whole.`,
    '',
    '| case | requests in flight | seconds | thumbnails | thumbnails/s | refused (503) | peak RSS MB |',
    '|---|---|---|---|---|---|---|',
    `| one at a time | 1 | ${alone.seconds.toFixed(1)} | ${alone.made} | ${rate(alone)} | ${alone.refused} | ${alone.peakRssMb} |`,
    `| queue full | ${CONCURRENCY + QUEUE} | ${full.seconds.toFixed(1)} | ${full.made} | ${rate(full)} | ${full.refused} | ${full.peakRssMb} |`,
    `| twice over capacity | ${2 * (CONCURRENCY + QUEUE)} | ${over.seconds.toFixed(1)} | ${over.made} | ${rate(over)} | ${over.refused} | ${over.peakRssMb} |`,
    '',
    `RSS before the runs (the source and sharp loaded): ${baselineRssMb} MB. Refused clients wait as \`Retry-After\` says.`,
    `A stored variant read back from the in-memory store: ${reads.toFixed(0)} reads/s.`,
  ];
  writeFileSync(resolve(ROOT, RESULTS), `${lines.join('\n')}\n`);
  log(`written to ${RESULTS}`);
}

await main();
